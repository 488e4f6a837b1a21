// Tasks over time: pid -> comm and priority as saved cmdlines and sched events reveal them, the
// threads they are by behaviour (IRQ and softirq threads), and which event marks a wakeup.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event.h"
#include "napiscope/string_table.h"

namespace napiscope {

/// What is known about one pid: its comm changes over time and its last seen priority.
struct TaskRecord {
  struct CommChange {
    TimestampNs since_ns;
    StringId comm;
  };
  std::vector<CommChange> comms;  ///< in time order; first entry may come from saved cmdlines
  int16_t last_prio = -1;         ///< kernel priority, -1 when never seen
  /// The IRQ whose hard handler woke it as its thread (the handler returned IRQ_WAKE_THREAD
  /// and this task's sched_waking followed on that CPU), -1 when none did.
  int32_t woken_as_thread_of_irq = -1;
  /// Softirq vectors (bit 1 << vec) it served as a softirq thread: woken right after another
  /// context raised the vector, its next run began with that vector's softirq_entry; 0 none.
  uint32_t served_softirq_vectors = 0;
};

/// irq_handler_exit's ret when the handler asks the kernel to wake the IRQ's thread.
inline constexpr int32_t kIrqWakeThread = 2;

/// pid -> TaskRecord. Fed by loaders, read by analyses and reports.
class TaskTable {
 public:
  /// Records that `pid` was called `comm` at `ts_ns` (no-op if unchanged).
  void ObserveComm(int32_t pid, StringId comm, TimestampNs ts_ns);

  /// Records a priority seen for `pid`.
  void ObservePrio(int32_t pid, int16_t prio);

  /// Records the comms and priorities an event reveals (sched_switch, wakeups, fork, ...),
  /// which tasks hard IRQs wake as their threads and which tasks serve softirqs as threads
  /// (docs/contexts.md, "threads by behaviour"). Events must come in timestamp order.
  void ObserveEvent(const Event& event);

  /// Sets the comm known before the trace started (saved cmdlines); does not override events.
  void SetInitialComm(int32_t pid, StringId comm);

  /// The latest known comm of `pid`, 0 (empty) if unknown.
  StringId CommOf(int32_t pid) const;

  /// The comm `pid` had at `ts_ns`, falling back to the earliest one an event gave (saved
  /// cmdlines only name pids no event names: they hold the name at the end of the recording).
  StringId CommAt(int32_t pid, TimestampNs ts_ns) const;

  /// The record of `pid`, or nullptr.
  const TaskRecord* Find(int32_t pid) const;

  /// Number of distinct pids known.
  size_t size() const { return tasks_.size(); }

  /// True for the event that marks a task's wakeup: sched_waking, or sched_wakeup while the
  /// trace has shown no sched_waking (kernels before 4.3 record only sched_wakeup).
  bool IsWake(const Event& event) const {
    return event.kind == EventKind::kSchedWaking ||
           (event.kind == EventKind::kSchedWakeup && !waking_seen_);
  }

  /// True once softirqs were seen entered right after a hard IRQ's exit event on their CPU, at
  /// least kNonRtEvidence times: the kernel runs softirqs at irq_exit, so it is not PREEMPT_RT,
  /// and no task but ksoftirqd and NAPI kthreads serves softirqs as a thread (issue 63).
  bool softirqs_at_irq_exit() const { return softirqs_at_irq_exit_ >= kNonRtEvidence; }

  /// True once any task was seen serving softirqs as a thread (served_softirq_vectors != 0).
  bool any_softirq_thread_by_behaviour() const { return any_softirq_thread_by_behaviour_; }

  /// True once any task was seen acting as an IRQ or softirq thread (woken_as_thread_of_irq or
  /// served_softirq_vectors set); until then classifying a task needs no lookup here.
  bool any_thread_by_behaviour() const {
    return any_irq_thread_by_behaviour_ || any_softirq_thread_by_behaviour_;
  }

  /// All tasks, unordered.
  const absl::flat_hash_map<int32_t, TaskRecord>& tasks() const { return tasks_; }

 private:
  // Applies a comm (0: none) and, when `has_prio`, a priority seen for `pid` at `ts_ns`;
  // skips the table when the pid's last observation said the same (most events repeat it).
  void Observe(int32_t pid, StringId comm, bool has_prio, int16_t prio, TimestampNs ts_ns);

  // The last observation of pids that share a slot (pid modulo kRecentSize).
  struct RecentObservation {
    int32_t pid;
    StringId comm;
    int16_t prio;
  };
  static constexpr int32_t kNoPid = INT32_MIN;
  static constexpr size_t kRecentSize = 256;
  RecentObservation& RecentOf(int32_t pid) {
    return recent_[static_cast<uint32_t>(pid) % kRecentSize];
  }

  // What the last event on a CPU says about the next one there.
  struct CpuNote {
    int32_t wakes_thread_of_irq = -1;  // irq_handler_exit returned IRQ_WAKE_THREAD: its IRQ
    int32_t raised_vec = -1;           // softirq_raise: its vector
    int32_t switched_in = -1;          // sched_switch to a task woken right after a raise
    bool irq_exited = false;           // a hard IRQ's exit event
    bool empty() const {
      return wakes_thread_of_irq < 0 && raised_vec < 0 && switched_in < 0 && !irq_exited;
    }
  };
  // Softirqs entered at IRQ exit that make a kernel not PREEMPT_RT: more than a coincidence
  // (a softirq thread between two vectors when an IRQ came) on an RT kernel.
  static constexpr uint8_t kNonRtEvidence = 3;
  // The kinds whose event may leave a note.
  static constexpr EventKindMask kNotingKinds = MaskOf(EventKind::kIrqHandlerExit) |
                                                MaskOf(EventKind::kIrqVectorExit) |
                                                MaskOf(EventKind::kSoftirqRaise) |
                                                MaskOf(EventKind::kSchedSwitch);

  // Reads the CPU's note of the previous event against this one (a thread's wakeup, a softirq
  // thread's first softirq) and writes this event's note.
  void NoteThreadBehaviour(const Event& event);
  // After a note on the CPU: applies it to `event`, the next event there.
  void ApplyNote(CpuNote note, const Event& event);

  absl::flat_hash_map<int32_t, TaskRecord> tasks_;
  std::vector<CpuNote> notes_;  // per CPU
  int noted_cpus_ = 0;          // CPUs whose note is not empty
  // Tasks woken right after a raise by another context: pid -> the vectors raised.
  absl::flat_hash_map<int32_t, uint32_t> woken_after_raise_;
  bool any_softirq_thread_by_behaviour_ = false;
  bool any_irq_thread_by_behaviour_ = false;
  // pid 0 has the name an event gave it, which it keeps (AppendComm): later names are no news.
  bool idle_named_by_event_ = false;
  bool waking_seen_ = false;  // a sched_waking was observed
  uint8_t softirqs_at_irq_exit_ = 0;  // softirq entries right after an IRQ exit (saturates)
  std::vector<RecentObservation> recent_ =
      std::vector<RecentObservation>(kRecentSize, RecentObservation{kNoPid, 0, -1});
};

/// The idle task's name on `cpu`: swapper/N.
std::string IdleTaskName(int cpu);

/// What every sentence, table, label and export calls `pid` running on `cpu` at `ts_ns`: the
/// idle task (pid 0) is swapper/N of that CPU whatever the comm cache says (it holds one CPU's
/// name for all), any other pid the comm it had then (TaskTable::CommAt); "" when unknown.
std::string TaskNameOnCpu(const TaskTable& tasks, const StringTable& strings, int32_t pid,
                          int cpu, TimestampNs ts_ns);

}  // namespace napiscope
