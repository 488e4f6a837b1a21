// Pinned thread lanes: one task across all CPUs — when and where it ran (colour per CPU), its
// wake -> run waits and its migrations. Runs come from the core timeline's task lanes; waits
// are the core's activations (IRQ threads, NAPI kthreads, ksoftirqd) or, for other tasks, the
// core's wake-wait producer run over the trace's events when the task is pinned; never
// re-paired here.
#pragma once

#include <QColor>
#include <QPainter>
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "loaded_trace.h"
#include "timeline_layout.h"

namespace napiscope::gui {

/// A stretch of time a task ran on one CPU.
struct ThreadRun {
  TimestampNs start_ns = 0;
  TimestampNs end_ns = 0;
  uint16_t cpu = 0;
};

/// A wait of a pinned task from its wakeup (or hard IRQ) to its switch-in.
struct ThreadWait {
  TimestampNs from_ns = 0;  ///< the sched_waking, or the hard IRQ of an IRQ thread
  TimestampNs to_ns = 0;    ///< the switch-in
  uint16_t from_cpu = 0;    ///< CPU of the waking or the hard IRQ
  uint16_t to_cpu = 0;      ///< CPU it ran on
  /// The core's activation kind for a service thread; unset for another task's wakeup.
  std::optional<ActivationKind> activation;
};

/// What a pinned lane shows for one task.
struct ThreadLaneData {
  int32_t pid = 0;
  QString name;                    ///< "comm (pid)"
  std::vector<ThreadRun> runs;     ///< in time order, touching runs on one CPU merged
  std::vector<ThreadWait> wakes;   ///< its wake -> run waits, by from_ns
  int migrations = 0;              ///< runs on another CPU than the run before
};

/// Builds the lane of `pid` from the trace's timeline.
ThreadLaneData BuildThreadLane(const LoadedTrace& trace, int32_t pid);

/// The pids a --pin item names: a pid, or every task whose comm starts with the text.
std::vector<int32_t> FindTasks(const LoadedTrace& trace, const QString& spec);

/// The lanes of the pinned tasks, built once per pin.
class ThreadLanes {
 public:
  /// Builds the lane of `pid` (no-op when already built).
  void Add(const LoadedTrace& trace, int32_t pid);
  void Remove(int32_t pid) { lanes_.erase(pid); }
  void Clear() { lanes_.clear(); }
  /// The lane of `pid`, or null.
  const ThreadLaneData* Find(int32_t pid) const;

 private:
  std::map<int32_t, std::shared_ptr<const ThreadLaneData>> lanes_;
};

/// Paints a thread lane into `row` for the time axis `axis`.
void PaintThreadLane(QPainter& painter, const ThreadLaneData& lane, const LaneRow& row,
                     const TimeAxis& axis);

/// Tooltip (rich text) of a thread lane at `ts_ns` ("" when nothing is there); `slack_ns` is
/// how near a run or wait must be.
QString DescribeThreadAt(const LoadedTrace& trace, const ThreadLaneData& lane, TimestampNs ts_ns,
                         TimestampNs slack_ns);

}  // namespace napiscope::gui
