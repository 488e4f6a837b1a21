// Report rows about where interrupt and softirq threads ran, ksoftirqd blocked with work
// pending, and CPUs going idle with softirqs pending.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "napiscope/blame.h"
#include "napiscope/duration_stats.h"
#include "napiscope/task_class.h"

namespace napiscope {

/// Activations, placement and wake-to-run latency of one IRQ thread, NAPI kthread or ksoftirqd.
struct ThreadActivityRow {
  TaskClass task_class = TaskClass::kOther;  ///< kIrqThread, kNapiKthread or kKsoftirqd
  int32_t pid = 0;
  std::string comm;
  int16_t prio = -1;           ///< kernel priority last seen
  int32_t irq = -1;            ///< IRQ threads: the IRQ number from irq/<N>-name
  std::string irq_handler;     ///< IRQ threads: handler name of irq_handler_entry, if recorded
  std::map<int, int64_t> hardirq_cpus;  ///< IRQ threads: hard IRQs of that IRQ per CPU
  int64_t activations = 0;              ///< wakeups (hard IRQ or sched_waking) followed by a run
  int64_t cross_cpu_activations = 0;    ///< ... whose run was on another CPU than the wakeup
  int64_t inexact_activations = 0;      ///< ... whose switch-in was not recorded (no latency)
  int64_t dropped_activations = 0;      ///< ... across lost events (unknown)
  std::map<std::pair<int, int>, int64_t> activation_paths;  ///< (wakeup CPU, run CPU) -> count
  int64_t migrations = 0;               ///< sched_migrate_task events of this pid
  std::map<int, int64_t> run_ns_by_cpu;  ///< time it was the running task, per CPU
  int64_t runs = 0;                     ///< separate runs (switch-in to switch-out)
  int64_t cpu_changes = 0;              ///< runs on another CPU than the run before
  double cpu_changes_per_s = 0;         ///< cpu_changes over the trace span
  double migrations_per_s = 0;          ///< migrations over the trace span
  DurationStats wake_to_run_same_cpu;   ///< wakeup -> switch-in, same CPU
  DurationStats wake_to_run_cross_cpu;  ///< wakeup -> switch-in, other CPU

  /// cross_cpu_activations / activations, 0 when there were none.
  double CrossCpuShare() const {
    return activations > 0 ? static_cast<double>(cross_cpu_activations) / activations : 0;
  }
};

/// One link of the chain behind a blocked ksoftirqd: who it waited on, and why that one waited.
struct ChainLink {
  int32_t pid = 0;
  std::string comm;
  int16_t prio = -1;         ///< kernel priority
  std::string relation;      ///< how it relates to the link before, in words
  TimestampNs since_ns = 0;  ///< since when the relation held (0 when unknown)
};

/// Time a task held a CPU during some interval.
struct TaskTime {
  int32_t pid = 0;
  std::string comm;
  int16_t prio = -1;  ///< kernel priority
  int64_t time_ns = 0;
};

/// An interval in which ksoftirqd/N was switched out in a non-running state while softirqs
/// were pending on its CPU.
struct KsoftirqdBlockedRow {
  int cpu = 0;
  int32_t pid = 0;
  std::string comm;
  std::string state;               ///< prev_state letters at the switch-out ("D", "S")
  TimestampNs start_ns = 0;        ///< the switch-out
  TimestampNs end_ns = 0;          ///< the sched_waking that ended it (or what else ended it)
  int64_t duration_ns = 0;
  bool end_known = true;           ///< false when lost events or the trace end closed it
  uint32_t pending_mask_start = 0;
  uint32_t pending_mask_end = 0;
  int32_t waker_pid = -1;          ///< -1 when no sched_waking ended it
  std::string waker_comm;
  int waker_cpu = -1;
  std::string waker_context;       ///< "task", "hardirq eth0", "softirq NET_RX", ...
  std::vector<ChainLink> chain;    ///< first the holder, then what held the holder
  std::vector<TaskTime> cpu_held_by;  ///< tasks running on its CPU meanwhile, longest first
};

/// A switch to the idle task while softirqs were raised and not yet entered on that CPU.
struct IdleWithPendingRow {
  int cpu = 0;
  TimestampNs ts_ns = 0;
  uint32_t pending_mask = 0;
  std::map<uint32_t, int64_t> processed_after_ns;  ///< vec -> entry minus idle entry; -1 unknown
};

/// A vector that waited while a lower-numbered vector was in progress on the same CPU.
struct SoftirqOrderingStallRow {
  int cpu = 0;
  uint32_t vec = 0;                 ///< the vector that waited
  TimestampNs raise_ns = 0;
  TimestampNs entry_ns = 0;
  int64_t wait_ns = 0;
  uint32_t blocking_vec = 0;        ///< the lower vector in progress at the raise
  int32_t blocking_pid = 0;         ///< the task it ran in
  std::string blocking_comm;
  std::string blocking_site;        ///< SoftirqSiteName of the blocking softirq
  bool blocking_preempted = false;  ///< the blocking task was switched out inside it (RT)
  /// Time the blocking vector held the CPU during the wait (its blame); -1 when not known.
  int64_t blocking_held_ns = -1;
  std::vector<BlameItem> blame;     ///< who held the CPU during the wait, longest first
  int64_t unknown_ns = 0;           ///< time of the wait nothing is known about
};

/// A CPU whose ksoftirqd did not run once in the recording while softirq work waited there
/// and RT tasks held the CPU (docs/definitions.md, "Starved softirq thread").
struct StarvedSoftirqThreadRow {
  int cpu = 0;
  int32_t pid = -1;              ///< ksoftirqd/N's pid, -1 when the trace never names it
  std::string comm;              ///< "ksoftirqd/N"
  TimestampNs from_ns = 0;       ///< the CPU's recorded time (its first segment) ...
  TimestampNs to_ns = 0;         ///< ... to its last
  int64_t rt_ns = 0;             ///< RT tasks' time on the CPU meanwhile (not softirq threads)
  double rt_share = 0;           ///< rt_ns over to_ns - from_ns
  std::vector<TaskTime> rt_holders;  ///< those tasks, longest first
  uint32_t longest_vec = 0;      ///< the softirq that waited longest on the CPU ...
  TimestampNs longest_raise_ns = 0;  ///< ... raised here ...
  int64_t longest_wait_ns = 0;   ///< ... and waited this long (to its entry, or to to_ns)
  bool longest_never_ran = false;  ///< it was still pending when the recording ended
  uint32_t pending_at_end = 0;   ///< vectors raised and not entered when the recording ended
};

}  // namespace napiscope
