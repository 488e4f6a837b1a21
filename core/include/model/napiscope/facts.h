// Derived facts: what the model layer pairs once from the event stream (softirq waits, thread
// activations, wake-to-run waits, the task on each CPU) and hands to every consumer as it
// streams. Analyses, the timeline, exporters and reports subscribe to these instead of pairing
// raw events themselves. The exact definitions are in docs/definitions.md.
#pragma once

#include <cstdint>

#include "napiscope/contexts.h"
#include "napiscope/event.h"
#include "napiscope/task_class.h"

namespace napiscope {

/// The interrupt a softirq raise or a wakeup came from, as the context tracker saw its CPU.
struct IrqSource {
  /// The traced hard IRQ (or x86 vector) whose handler was running; else, at task level or in
  /// a softirq of an IRQ thread, the IRQ that thread serves; none (-1) otherwise (or no
  /// tracker). A device IRQ 236 and the local timer's vector 236 are two sources.
  InterruptId irq;
  bool in_hardirq = false;  ///< true when `irq` is the hard IRQ handler that was running
  /// True when an IRQ is known.
  bool known() const { return irq.known(); }
};

/// A softirq vector that became pending on a CPU: the first raise since it last entered there.
struct SoftirqRaiseFact {
  TimestampNs raise_ns = 0;   ///< the first softirq_raise
  uint16_t cpu = 0;           ///< the CPU it was raised on (and will run on)
  uint32_t vec = 0;           ///< softirq vector (0-31)
  uint32_t pending_mask = 0;  ///< vectors pending on the CPU after this raise (bit = 1 << vec)
  IrqSource source;           ///< the IRQ it was raised in
};

/// A softirq_entry and, when the vector was pending, the first raise it pairs with.
struct SoftirqWaitFact {
  TimestampNs raise_ns = -1;  ///< the first raise since the vector last entered; -1 when none
  TimestampNs entry_ns = 0;   ///< the softirq_entry
  uint16_t cpu = 0;           ///< the CPU of raise and entry
  uint32_t vec = 0;           ///< softirq vector (0-31)
  SoftirqSite site = SoftirqSite::kUnknown;  ///< where it ran; kUnknown without a tracker's frame
  uint32_t pending_mask = 0;  ///< vectors pending on the CPU just before the entry
  IrqSource source;           ///< the IRQ the paired raise came from (unknown when not paired)
  int32_t task_pid = -1;      ///< the task on the CPU at the entry (site kIrqExit: interrupted)
  int16_t task_prio = -1;     ///< that task's kernel priority as the tracker knew it, -1 unknown
  /// True when a raise was pending: a wait of entry_ns - raise_ns.
  bool paired() const { return raise_ns >= 0; }
  /// The raise-to-entry delay; 0 when not paired.
  int64_t delay_ns() const { return paired() ? entry_ns - raise_ns : 0; }
};

/// True for the classes of service threads: IRQ threads, NAPI kthreads, ksoftirqd and RT
/// softirq threads (ServesSoftirqs).
inline bool IsServiceThreadClass(TaskClass task_class) { return ServesSoftirqs(task_class); }

/// A thread that serves IRQs or softirqs (IRQ thread, NAPI kthread, ksoftirqd, RT softirq
/// thread), as tracked.
struct ServiceThread {
  int32_t pid = 0;                           ///< the thread
  TaskClass task_class = TaskClass::kOther;  ///< kIrqThread, kNapiKthread, kKsoftirqd or kSoftirqThread
  int32_t irq = -1;  ///< the IRQ of an IRQ thread (its name, else the IRQ that woke it), else -1
  StringId comm = 0;                         ///< its name when first seen
  int16_t prio = -1;                         ///< last kernel priority seen, -1 unknown
};

/// A service thread's activation: a hard IRQ of its number (IRQ threads) or its first
/// sched_waking (others) while it was not running, paired with its next switch-in.
struct ThreadActivationFact {
  TimestampNs woken_ns = 0;  ///< the hard IRQ entry or the sched_waking
  TimestampNs run_ns = 0;    ///< the switch-in (exact) or the thread's first event (inexact)
  int32_t pid = 0;           ///< the thread
  int32_t irq = -1;          ///< the hard IRQ of an IRQ thread, else -1
  StringId comm = 0;         ///< the thread's name when first seen
  TaskClass task_class = TaskClass::kOther;  ///< the thread's class
  uint16_t from_cpu = 0;     ///< CPU of the hard IRQ or the waking
  uint16_t to_cpu = 0;       ///< CPU it ran on
  bool exact = true;         ///< false when the switch-in was not recorded
  bool lost = false;         ///< events were lost on from_cpu or to_cpu in between: unknown
  IrqSource source;          ///< the IRQ that activated it (its own hard IRQ, or the waker's)
  /// True when it ran on another CPU than the one that activated it.
  bool cross_cpu() const { return from_cpu != to_cpu; }
};

/// A sched_migrate_task of a service thread.
struct ThreadMigrationFact {
  TimestampNs ts_ns = 0;  ///< the sched_migrate_task
  int32_t pid = 0;        ///< the thread
  int16_t orig_cpu = -1;  ///< from
  int16_t dest_cpu = -1;  ///< to
};

/// Why a wake-to-run wait was not paired.
enum class WakeDropReason : uint8_t {
  kLostEvents,  ///< events were lost on a CPU it was queued on: it may have run unseen
  kRanUnseen,   ///< the thread was seen running (switched out) without its switch-in
  kWokenAgain,  ///< another sched_waking of it came first: it ran and slept in between, unseen
};

/// A wake-to-run wait: a sched_waking of a task that was not running, until its switch-in.
/// Every wait gets one Queued, any number of Moved, then one Ran or one Dropped.
struct WakeWaitFact {
  uint64_t wait_id = 0;       ///< unique per wait within one trace
  int32_t pid = 0;            ///< the woken task
  int16_t waking_prio = -1;   ///< kernel priority in the sched_waking
  StringId waking_comm = 0;   ///< comm in the sched_waking
  TimestampNs waking_ns = 0;  ///< the sched_waking
  uint16_t waker_cpu = 0;     ///< CPU of the sched_waking
  uint16_t queue_cpu = 0;     ///< CPU it is queued on (target_cpu, then migrations)
  IrqSource source;           ///< the IRQ the sched_waking ran in (or the waking IRQ thread's)
};

/// The switch-in that ends a wake-to-run wait.
struct WakeRunFact {
  uint64_t wait_id = 0;       ///< the wait it ends
  int32_t pid = 0;            ///< the task
  TimestampNs waking_ns = 0;  ///< the sched_waking
  TimestampNs run_ns = 0;     ///< the sched_switch that put it on a CPU
  uint16_t cpu = 0;           ///< CPU it ran on
  uint16_t queue_cpu = 0;     ///< CPU it was queued on last
  StringId comm = 0;          ///< next_comm of the switch
  int16_t prio = -1;          ///< next_prio of the switch
};

/// A task switch on a CPU: the current task per CPU as the stream shows it.
struct TaskSwitchFact {
  TimestampNs ts_ns = 0;  ///< the sched_switch, or the first event of a task seen unannounced
  uint16_t cpu = 0;       ///< the CPU
  int32_t prev_pid = -1;  ///< who ran before, -1 unknown (trace start, after lost events)
  int32_t next_pid = 0;   ///< who runs now
  bool exact = true;      ///< false when no sched_switch was recorded for it
};

/// Receives derived facts as they are produced, in stream order. Every method defaults to
/// nothing, so a consumer overrides only what it reads.
class FactListener {
 public:
  virtual ~FactListener() = default;
  /// A vector became pending on a CPU (first raise).
  virtual void OnSoftirqRaise(const SoftirqRaiseFact& raise) { (void)raise; }
  /// A softirq_entry, paired with its first raise when one was pending.
  virtual void OnSoftirqWait(const SoftirqWaitFact& wait) { (void)wait; }
  /// A pending raise that can never be paired: events were lost on its CPU at `gap_ns`.
  virtual void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) {
    (void)raise, (void)gap_ns;
  }
  /// The current task of a CPU changed.
  virtual void OnTaskSwitch(const TaskSwitchFact& change) { (void)change; }
  /// A service thread was first seen (before any fact about it).
  virtual void OnServiceThread(const ServiceThread& thread) { (void)thread; }
  /// A service thread activation ended at its switch-in (or was dropped as unknown: `lost`).
  virtual void OnThreadActivation(const ThreadActivationFact& activation) { (void)activation; }
  /// A service thread was migrated.
  virtual void OnThreadMigration(const ThreadMigrationFact& migration) { (void)migration; }
  /// A wake-to-run wait began.
  virtual void OnWakeQueued(const WakeWaitFact& wait) { (void)wait; }
  /// A queued task moved to another CPU's queue at `ts_ns`.
  virtual void OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                           TimestampNs ts_ns) {
    (void)wait_id, (void)from_cpu, (void)to_cpu, (void)ts_ns;
  }
  /// A wake-to-run wait ended with the task's switch-in.
  virtual void OnWakeRan(const WakeRunFact& run) { (void)run; }
  /// A wake-to-run wait is unknown and dropped.
  virtual void OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) {
    (void)wait_id, (void)reason, (void)ts_ns;
  }
};

}  // namespace napiscope
