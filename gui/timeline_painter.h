// Paints the timeline with QPainter: ruler, label column, per-CPU lanes (aggregated per pixel
// column when dense), waits, gaps, cross-CPU arrows, markers and highlights. Cost is bounded
// by the number of pixels, not events: every lane asks the core's Timeline::Query.
#pragma once

#include <QPainter>
#include <optional>
#include <vector>

#include "loaded_trace.h"
#include "thread_lanes.h"
#include "timeline_layout.h"

namespace napiscope::gui {

/// The time axis a view of `state` has in `layout`.
TimeAxis AxisOf(const TimelineViewState& state, const TimelineLayout& layout);

/// Paints one frame of the timeline: CPU rows (clipped below the ruler), then the ruler and
/// markers on top.
class TimelinePainter {
 public:
  /// `threads` holds the lanes of state.pinned_pids (may be null: none drawn).
  TimelinePainter(const LoadedTrace& trace, const TimelineViewState& state,
                  const TimelineLayout& layout, const ThreadLanes* threads = nullptr);

  /// Paints the whole frame, markers included.
  void Paint(QPainter& painter);

  /// Paint without the markers: everything that stays when only a marker moves.
  void PaintContent(QPainter& painter);

  /// The markers A and B over a frame PaintContent drew (with the painter's font as
  /// PaintContent leaves it: FrameFont of the widget's).
  void PaintMarkers(QPainter& painter);

  /// The font a frame's text is drawn in, from the widget's font.
  static QFont FrameFont(const QFont& widget_font);

 private:
  void PaintLabels(QPainter& painter, const LaneRow& row);
  void PaintRow(QPainter& painter, const LaneRow& row);
  void PaintSlice(QPainter& painter, const LaneRow& row, Lane lane, int top, int height,
                  bool labels);
  void PaintIntervalLabel(QPainter& painter, const TimelineInterval& interval, Lane lane,
                          const QRectF& rect);
  void PaintCompactRow(QPainter& painter, const LaneRow& row);
  void PaintGaps(QPainter& painter, const LaneRow& row);
  void PaintHighlight(QPainter& painter);
  void PaintArrows(QPainter& painter);
  void PaintRuler(QPainter& painter);
  void PaintThreadRows(QPainter& painter);

  const LoadedTrace& trace_;
  const TimelineViewState& state_;
  const TimelineLayout& layout_;
  // The bold font of the CPU names in `row`, from the frame's font. Kept for the frame: the
  // rows of a frame share one or two sizes, and a font made anew for each of a hundred rows
  // was looked up anew in Qt's font cache each time.
  const QFont& CpuNameFont(const QFont& frame_font, const LaneRow& row);

  const ThreadLanes* threads_;
  TimeAxis axis_;
  std::optional<std::pair<int, QFont>> cpu_name_font_;  // by pixel size; 0: a task row's
};

/// The bar of a column busy `fraction` (0..1) of its time, in a lane `height` pixels tall:
/// rounded to a pixel, at least a few pixels.
int ColumnBarHeight(double fraction, int height);

/// Fills the aggregated columns of `slice` (one summary per pixel column of `axis`) as bars
/// standing on the bottom of [top, top + height): as tall as the column was busy (at least a
/// few pixels), in the colour of the key with the most time, with a red top edge where an
/// exhausted NAPI poll is summarised.
void PaintColumns(QPainter& painter, const LaneSlice& slice, Lane lane, const TimeAxis& axis,
                  int top, int height);

/// A tick step (1, 2 or 5 times a power of ten ns) leaving at least `min_pixels` between ticks.
TimestampNs RulerStep(double ns_per_pixel, int min_pixels);

/// Label of a ruler tick `offset_ns` from the trace start, precise enough for ticks `step_ns`
/// apart ("250 ms", "150.02 ms", "1.2345 s").
QString RulerLabel(TimestampNs offset_ns, TimestampNs step_ns);

}  // namespace napiscope::gui
