// What is under the mouse on the timeline: the interval (for double-click zoom) and the
// tooltip text that describes it, or the summary of a dense spot.
#pragma once

#include <QPoint>
#include <QString>
#include <optional>

#include "loaded_trace.h"
#include "timeline_painter.h"

namespace napiscope::gui {

/// An interval found under the mouse.
struct TimelineHit {
  int cpu = 0;
  Lane lane = Lane::kTask;
  TimelineInterval interval;
};

/// The interval at `pos`, if one is there and the spot is not too dense to pick one.
std::optional<TimelineHit> HitTest(const LoadedTrace& trace, const TimelineViewState& state,
                                   const TimelineLayout& layout, QPoint pos);

/// Tooltip (rich text) for `pos`: the interval, a summary of a dense spot, or a gap; "" when
/// nothing is there.
QString DescribeAt(const LoadedTrace& trace, const TimelineViewState& state,
                   const TimelineLayout& layout, QPoint pos);

/// Rich-text description of one interval, as the tooltip shows it.
QString DescribeInterval(const LoadedTrace& trace, const TimelineHit& hit);

}  // namespace napiscope::gui
