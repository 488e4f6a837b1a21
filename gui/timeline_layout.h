// Where things are on the timeline widget: the ruler (always on top), the label column, one
// compact row or four lane rows per visible CPU scrolled below the ruler, and the mapping
// between x and time.
#pragma once

#include <QRect>
#include <algorithm>
#include <optional>
#include <vector>

#include "napiscope/timeline.h"

namespace napiscope::gui {

/// The rows drawn per CPU, top to bottom (the wait lane shares the softirq row). A compact row
/// draws the four lanes of its CPU in one line: the task at full height, softirqs at two
/// thirds, hard IRQs at a third, NAPI polls as a strip along the top.
enum class RowKind { kTask, kHardirq, kSoftirq, kNapiPoll, kCompact, kThread };

/// One row of one CPU, or (kThread) the lane of a pinned task across all CPUs.
struct LaneRow {
  int cpu = 0;
  RowKind kind = RowKind::kTask;
  int top = 0;
  int height = 0;
  int32_t pid = 0;  ///< kThread: the pinned task

  int center() const { return top + height / 2; }
  int bottom() const { return top + height; }
};

/// What the view shows; the widget owns it, the layout, the painter and tests read it.
struct TimelineViewState {
  TimestampNs from_ns = 0;
  TimestampNs to_ns = 1;
  std::optional<TimestampNs> marker_a;  ///< set by a click
  std::optional<TimestampNs> marker_b;  ///< set by a shift-click
  std::vector<bool> cpu_visible;        ///< per CPU; missing entries are visible
  std::vector<bool> cpu_expanded;       ///< per CPU: four lane rows instead of the compact row
  int scroll_y = 0;                     ///< pixels of CPU rows scrolled above the ruler's bottom
  ItemMask item_mask;                   ///< Timeline::MatchingItems; empty: no filter
  std::vector<int> highlight_cpus;      ///< CPUs of the selected finding
  std::optional<std::pair<TimestampNs, TimestampNs>> highlight_window;  ///< its time window
  std::vector<uint8_t> emphasis;  ///< Timeline::NamedItems of the finding; outlined when drawn
  std::vector<int32_t> pinned_pids;  ///< thread lanes, under the ruler, in pin order
};

/// Maps between time and x inside the time area.
struct TimeAxis {
  TimestampNs from_ns = 0;
  TimestampNs to_ns = 1;
  int left = 0;   ///< x of from_ns
  int width = 1;  ///< pixels from from_ns to to_ns

  /// x of `ts_ns` (inline: a busy frame asks for two per interval drawn).
  double XOf(TimestampNs ts_ns) const {
    return left +
           static_cast<double>(ts_ns - from_ns) * width / static_cast<double>(to_ns - from_ns);
  }
  /// The time at `x`, to the nearest ns.
  TimestampNs TimeAt(double x) const;
  /// Nanoseconds one pixel covers.
  double NsPerPixel() const { return static_cast<double>(to_ns - from_ns) / width; }
};

/// The geometry of the timeline for a widget size, the CPUs shown and the scroll position.
class TimelineLayout {
 public:
  static constexpr int kRulerHeight = 30;
  static constexpr int kLabelWidth = 118;
  static constexpr int kCpuGap = 10;          ///< space above an expanded CPU
  static constexpr int kCompactGap = 1;       ///< space above a compact CPU row
  static constexpr int kMinCompactHeight = 10;
  static constexpr int kMaxCompactHeight = 22;
  static constexpr int kThreadRowHeight = 22;  ///< a pinned task's lane

  /// `viewport_height` is the widget's height (0: as tall as the rows, nothing scrolled);
  /// compact rows share it, between kMinCompactHeight and kMaxCompactHeight pixels each.
  TimelineLayout(int cpus, const TimelineViewState& state, int width, int viewport_height = 0);

  /// Height of the ruler and every row, unscrolled.
  int content_height() const { return content_height_; }
  /// Height of the widget (content_height() when it was given as 0).
  int height() const { return viewport_height_; }
  int width() const { return width_; }
  /// The largest useful scroll_y.
  int max_scroll() const { return std::max(0, content_height_ - viewport_height_); }

  /// The time area: right of the label column, below the ruler.
  int time_left() const { return kLabelWidth; }
  int time_width() const { return std::max(1, width_ - kLabelWidth); }
  /// Top of the scrolled area (below the ruler and the pinned thread lanes).
  int rows_top() const { return rows_top_; }

  /// Rows of visible CPUs in widget coordinates (scrolled; some may be above rows_top()).
  const std::vector<LaneRow>& rows() const { return rows_; }

  /// The pinned thread lanes, fixed under the ruler.
  const std::vector<LaneRow>& thread_rows() const { return thread_rows_; }

  /// The thread lane of `pid`, or null when it is not pinned.
  const LaneRow* FindThread(int32_t pid) const;

  /// The row at `y` (a thread lane or a CPU row), or null (ruler, gaps between CPUs, rows
  /// scrolled under the pinned area).
  const LaneRow* RowAt(int y) const;

  /// The row of `cpu` and `kind`, or null when the CPU is hidden or drawn otherwise.
  const LaneRow* Find(int cpu, RowKind kind) const;

  /// The row that shows lane `kind` of `cpu`: its own row when expanded, else the compact row.
  const LaneRow* Anchor(int cpu, RowKind kind) const;

  /// Top and bottom of a CPU's group of rows (widget coordinates); nullopt when hidden.
  std::optional<std::pair<int, int>> CpuSpan(int cpu) const;

  /// The scroll_y that shows `cpu` whole below the ruler, changing `scroll_y` as little as
  /// possible; `scroll_y` when it is hidden.
  int ScrollToShow(int cpu, int scroll_y) const;

  /// Height of a lane row of `kind` (compact rows are compact_height() high).
  static int RowHeight(RowKind kind);
  int compact_height() const { return compact_height_; }

  /// The lane a row draws (the softirq row also draws Lane::kSoftirqWait; compact rows all).
  static Lane LaneOf(RowKind kind);

  /// Short name of a row for the label column.
  static const char* RowName(RowKind kind);

  /// True when `cpu` shows four rows (state.cpu_expanded; by default only with 4 CPUs or fewer).
  static bool Expanded(const TimelineViewState& state, int cpus, int cpu);
  /// True when CPUs show four rows by default with `shown_cpus` CPUs shown (4 or fewer).
  static bool ExpandedByDefault(size_t shown_cpus);

 private:
  int width_ = 0;
  int viewport_height_ = 0;
  int content_height_ = 0;
  int compact_height_ = kMaxCompactHeight;
  int rows_top_ = kRulerHeight;
  std::vector<LaneRow> rows_;
  std::vector<LaneRow> thread_rows_;
};

}  // namespace napiscope::gui
