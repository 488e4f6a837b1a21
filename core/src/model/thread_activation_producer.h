// The task current on each CPU, and activations of service threads (IRQ threads, NAPI
// kthreads, ksoftirqd): docs/definitions.md, "Current task" and "Thread activations".
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "model/fact_bus.h"
#include "napiscope/contexts.h"
#include "napiscope/event_sink.h"
#include "napiscope/task_classifier.h"

namespace napiscope::internal {

class WakeWaitProducer;

/// The kinds ThreadActivationProducer reads for more than who ran them.
inline constexpr EventKindMask kActivationKinds =
    MaskOf(EventKind::kMissedEvents) | MaskOf(EventKind::kSchedSwitch) |
    MaskOf(EventKind::kIrqHandlerEntry) | MaskOf(EventKind::kSchedWaking) |
    MaskOf(EventKind::kSchedWakeup) | MaskOf(EventKind::kSchedMigrateTask);

/// Produces TaskSwitchFact, ServiceThread, ThreadActivationFact and ThreadMigrationFact.
/// Reads the IRQ a wakeup ran in from `tracker` (fed each event first; may be null).
class ThreadActivationProducer {
 public:
  ThreadActivationProducer(const ContextTracker* tracker, const FactBus* bus)
      : tracker_(tracker), bus_(bus) {}

  /// Pairs the activations begun by a waking as `wakes` pairs wake-to-run waits (one rule,
  /// docs/definitions.md): read at each switch-in, before `wakes` has seen the event.
  void PairWakesWith(const WakeWaitProducer* wakes) { wakes_ = wakes; }
  /// The trace context (strings and tasks) used to name and classify threads.
  void OnBegin(const TraceContext& context) { context_ = &context; }
  /// Feed every event in stream order. Most are of a kind read only for who ran them, and from
  /// the task already current on their CPU: those are passed over here, inline, without a call.
  void OnEvent(const Event& event) {
    if ((kActivationKinds & MaskOf(event.kind)) == 0 && event.cpu < current_.size() &&
        current_[event.cpu] == event.pid) {
      return;
    }
    Apply(event);
  }
  /// A task interval of the context tracker: tracks a service thread seen only there.
  void OnTaskInterval(int32_t pid, StringId comm, int16_t prio);

  /// The task current on `cpu`, -1 unknown.
  int32_t CurrentPid(uint16_t cpu) const { return cpu < current_.size() ? current_[cpu] : -1; }
  /// True when `pid` is current on some CPU.
  bool IsRunning(int32_t pid) const;
  /// The service thread `pid`, nullptr when none.
  const ServiceThread* Find(int32_t pid) const;
  /// All service threads seen.
  std::vector<ServiceThread> Threads() const;

 private:
  void Apply(const Event& event);
  struct Thread {
    ServiceThread info;
    int running_cpu = -1;  // -1: not running
    bool pending = false;  // woken (or its hard IRQ fired) and not yet switched in
    bool pending_waking = false;  // the pending activation began with a waking
    TimestampNs pending_ns = 0;
    int pending_cpu = -1;
    IrqSource pending_source;
  };

  Thread* FindThread(int32_t pid);
  Thread* Track(int32_t pid, StringId comm, int16_t prio);
  void Wakeup(Thread& thread, int cpu, TimestampNs ts_ns, IrqSource source);
  void Waking(Thread& thread, int cpu, TimestampNs ts_ns, IrqSource source);
  // Hands out the pending activation of `thread`, ended on `cpu` at `ts_ns`.
  void Activated(Thread& thread, int cpu, TimestampNs ts_ns, bool exact, bool lost);
  void SwitchIn(Thread& thread, int cpu, TimestampNs ts_ns, bool exact);
  void SwitchOut(int cpu);
  // `thread` (may be null: not a service thread) leaves `cpu`.
  void SwitchOut(Thread* thread, int cpu);
  void Switched(uint16_t cpu, TimestampNs ts_ns, int32_t prev_pid, int32_t next_pid, bool exact);
  void HardIrq(const Event& event);

  const ContextTracker* tracker_;
  const FactBus* bus_;
  const WakeWaitProducer* wakes_ = nullptr;
  const TraceContext* context_ = nullptr;
  TaskClassifier classifier_;  // the class of each task first seen
  absl::flat_hash_map<int32_t, Thread> threads_;
  absl::flat_hash_map<int32_t, std::vector<int32_t>> irq_threads_;  // irq -> thread pids
  // First hard IRQ of an IRQ whose thread has not appeared yet: (ts, cpu); the IRQ is the key.
  absl::flat_hash_map<int32_t, std::pair<TimestampNs, int>> unclaimed_irqs_;
  std::vector<int32_t> current_;          // per CPU: the task we believe runs, -1 unknown
  std::vector<TimestampNs> last_gap_ns_;  // per CPU: the latest missed-events marker
};

}  // namespace napiscope::internal
