// Where things are on the timeline widget: the ruler, the label column, one group of lane rows
// per visible CPU, and the mapping between x and time.
#pragma once

#include <QRect>
#include <optional>
#include <vector>

#include "napiscope/timeline.h"

namespace napiscope::gui {

/// The rows drawn per CPU, top to bottom (the wait lane shares the softirq row).
enum class RowKind { kTask, kHardirq, kSoftirq, kNapiPoll };

/// One row of one CPU.
struct LaneRow {
  int cpu = 0;
  RowKind kind = RowKind::kTask;
  int top = 0;
  int height = 0;

  int center() const { return top + height / 2; }
  int bottom() const { return top + height; }
};

/// Maps between time and x inside the time area.
struct TimeAxis {
  TimestampNs from_ns = 0;
  TimestampNs to_ns = 1;
  int left = 0;   ///< x of from_ns
  int width = 1;  ///< pixels from from_ns to to_ns

  double XOf(TimestampNs ts_ns) const;
  TimestampNs TimeAt(double x) const;
  /// Nanoseconds one pixel covers.
  double NsPerPixel() const { return static_cast<double>(to_ns - from_ns) / width; }
};

/// The geometry of the timeline for a widget width and the CPUs shown.
class TimelineLayout {
 public:
  static constexpr int kRulerHeight = 30;
  static constexpr int kLabelWidth = 118;
  static constexpr int kCpuGap = 10;

  /// `visible[cpu]` false hides that CPU (missing entries are visible).
  TimelineLayout(int cpus, const std::vector<bool>& visible, int width);

  /// Total height the rows need.
  int height() const { return height_; }
  int width() const { return width_; }

  /// The time area: right of the label column, below the ruler.
  int time_left() const { return kLabelWidth; }
  int time_width() const { return std::max(1, width_ - kLabelWidth); }

  const std::vector<LaneRow>& rows() const { return rows_; }

  /// The row at `y`, or null (ruler, gaps between CPUs).
  const LaneRow* RowAt(int y) const;

  /// The row of `cpu` and `kind`, or null when the CPU is hidden.
  const LaneRow* Find(int cpu, RowKind kind) const;

  /// Top and bottom of a CPU's group of rows; nullopt when hidden.
  std::optional<std::pair<int, int>> CpuSpan(int cpu) const;

  /// Height of a row of `kind`.
  static int RowHeight(RowKind kind);

  /// The lane a row draws (the softirq row also draws Lane::kSoftirqWait).
  static Lane LaneOf(RowKind kind);

  /// Short name of a row for the label column.
  static const char* RowName(RowKind kind);

 private:
  int width_ = 0;
  int height_ = 0;
  std::vector<LaneRow> rows_;
};

}  // namespace napiscope::gui
