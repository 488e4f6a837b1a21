// Paints the timeline with QPainter: ruler, label column, per-CPU lanes (aggregated per pixel
// column when dense), waits, gaps, cross-CPU arrows, markers and highlights. Cost is bounded
// by the number of pixels, not events: every lane asks the core's Timeline::Query.
#pragma once

#include <QPainter>
#include <optional>
#include <vector>

#include "loaded_trace.h"
#include "timeline_layout.h"

namespace napiscope::gui {

/// What the view shows; the widget owns it, the painter and tests read it.
struct TimelineViewState {
  TimestampNs from_ns = 0;
  TimestampNs to_ns = 1;
  std::optional<TimestampNs> marker_a;  ///< set by a click
  std::optional<TimestampNs> marker_b;  ///< set by a shift-click
  std::vector<bool> cpu_visible;        ///< per CPU; missing entries are visible
  ItemMask item_mask;                   ///< Timeline::MatchingItems; empty: no filter
  std::vector<int> highlight_cpus;      ///< CPUs of the selected finding
  std::optional<std::pair<TimestampNs, TimestampNs>> highlight_window;  ///< its time window
  std::vector<uint8_t> emphasis;  ///< Timeline::NamedItems of the finding; outlined when drawn
};

/// The time axis a view of `state` has in `layout`.
TimeAxis AxisOf(const TimelineViewState& state, const TimelineLayout& layout);

/// Paints one frame of the timeline.
class TimelinePainter {
 public:
  TimelinePainter(const LoadedTrace& trace, const TimelineViewState& state,
                  const TimelineLayout& layout);

  /// Paints rows intersecting `exposed` (all when it is empty or covers everything).
  void Paint(QPainter& painter, const QRect& exposed);

 private:
  void PaintLabels(QPainter& painter, const LaneRow& row);
  void PaintRow(QPainter& painter, const LaneRow& row);
  void PaintSlice(QPainter& painter, const LaneRow& row, Lane lane, int top, int height,
                  bool labels);
  void PaintIntervalLabel(QPainter& painter, const TimelineInterval& interval, Lane lane,
                          const QRectF& rect);
  void PaintGaps(QPainter& painter);
  void PaintHighlight(QPainter& painter);
  void PaintArrows(QPainter& painter);
  void PaintRuler(QPainter& painter);
  void PaintMarkers(QPainter& painter);

  const LoadedTrace& trace_;
  const TimelineViewState& state_;
  const TimelineLayout& layout_;
  TimeAxis axis_;
};

/// A tick step (1, 2 or 5 times a power of ten ns) leaving at least `min_pixels` between ticks.
TimestampNs RulerStep(double ns_per_pixel, int min_pixels);

/// Label of a ruler tick `offset_ns` from the trace start, precise enough for ticks `step_ns`
/// apart ("250 ms", "150.02 ms", "1.2345 s").
QString RulerLabel(TimestampNs offset_ns, TimestampNs step_ns);

}  // namespace napiscope::gui
