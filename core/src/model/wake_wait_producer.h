// Wake-to-run waits of every task (docs/definitions.md, "Wake-to-run waits"): a sched_waking
// of a task that is not running, the CPU queues it moves through, and its next switch-in.
#pragma once

#include <cstdint>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "model/fact_bus.h"
#include "model/thread_activation_producer.h"

namespace napiscope::internal {

/// Produces WakeWaitFact, moves, WakeRunFact and dropped waits. Reads the current task per CPU
/// from `tasks` and the IRQ a waking ran in from `tracker` (both fed each event before this
/// producer; the tracker may be null).
class WakeWaitProducer {
 public:
  WakeWaitProducer(const ContextTracker* tracker, const ThreadActivationProducer* tasks,
                   const FactBus* bus)
      : tracker_(tracker), tasks_(tasks), bus_(bus) {}

  /// The waking of `pid`'s wait still queued (neither run nor dropped), -1 when there is none.
  /// Read at a switch before this producer has seen it.
  TimestampNs QueuedWakingNs(int32_t pid) const {
    auto it = queued_.find(pid);
    return it == queued_.end() ? -1 : it->second.waking_ns;
  }

  /// Remembers the trace, whose task table says which wakeup events mark wakes.
  void OnBegin(const TraceContext& context) { context_ = &context; }

  /// Feed sched_waking (or sched_wakeup without it), sched_migrate_task, sched_switch and
  /// missed-events markers (others are ignored here, inline: they cost no call).
  void OnEvent(const Event& event) {
    switch (event.kind) {
      case EventKind::kSchedWaking:
      case EventKind::kSchedWakeup:
        Waking(event);
        break;
      case EventKind::kSchedMigrateTask:
        Migrate(event);
        break;
      case EventKind::kSchedSwitch:
        Switch(event);
        break;
      case EventKind::kMissedEvents:
        Lost(event);
        break;
      default:
        break;
    }
  }

 private:
  struct Queued {
    uint64_t wait_id = 0;
    TimestampNs waking_ns = 0;
    uint16_t cpu = 0;  // the CPU it is queued on now
  };

  void Waking(const Event& event);
  void Migrate(const Event& event);
  void Switch(const Event& event);
  void Lost(const Event& event);
  void Dropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns);

  const ContextTracker* tracker_;
  const ThreadActivationProducer* tasks_;
  const FactBus* bus_;
  const TraceContext* context_ = nullptr;
  uint64_t next_wait_id_ = 1;
  absl::flat_hash_map<int32_t, Queued> queued_;  // by pid
};

}  // namespace napiscope::internal
