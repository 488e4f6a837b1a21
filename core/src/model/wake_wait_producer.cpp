#include "model/wake_wait_producer.h"

#include <algorithm>
#include <vector>

#include "model/irq_source.h"

namespace napiscope::internal {

void WakeWaitProducer::Dropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) {
  bus_->Each([&](FactListener& listener) { listener.OnWakeDropped(wait_id, reason, ts_ns); });
}

// The kernel traces sched_waking only for a task that sleeps; a second one while the first is
// still queued means the task ran and slept again in between, unseen: the first is unknown.
void WakeWaitProducer::Waking(const Event& event) {
  if (context_ == nullptr || !context_->tasks.IsWake(event)) return;
  const WakeFields& wake = event.wake;
  if (wake.pid <= 0) return;
  if (auto queued = queued_.find(wake.pid); queued != queued_.end()) {
    uint64_t id = queued->second.wait_id;
    queued_.erase(queued);
    Dropped(id, WakeDropReason::kWokenAgain, event.ts_ns);
  }
  if (tasks_->IsRunning(wake.pid)) return;  // waking the running task switches nothing in
  WakeWaitFact wait;
  wait.wait_id = next_wait_id_++;
  wait.pid = wake.pid;
  wait.waking_prio = wake.prio;
  wait.waking_comm = wake.comm;
  wait.waking_ns = event.ts_ns;
  wait.waker_cpu = event.cpu;
  wait.queue_cpu = wake.target_cpu >= 0 ? static_cast<uint16_t>(wake.target_cpu) : event.cpu;
  wait.source = IrqSourceAt(tracker_, *tasks_, event.cpu);
  queued_[wake.pid] = {wait.wait_id, wait.waking_ns, wait.queue_cpu};
  bus_->Each([&](FactListener& listener) { listener.OnWakeQueued(wait); });
}

void WakeWaitProducer::Migrate(const Event& event) {
  const MigrateFields& migrate = event.migrate;
  auto queued = queued_.find(migrate.pid);
  if (migrate.dest_cpu < 0 || queued == queued_.end()) return;
  uint16_t dest = static_cast<uint16_t>(migrate.dest_cpu);
  Queued& wait = queued->second;
  if (dest == wait.cpu) return;
  uint16_t from = wait.cpu;
  wait.cpu = dest;
  bus_->Each(
      [&](FactListener& listener) { listener.OnWakeMoved(wait.wait_id, from, dest, event.ts_ns); });
}

void WakeWaitProducer::Switch(const Event& event) {
  const SchedSwitchFields& sw = event.sched_switch;
  // A queued task seen running without its switch-in (missing events) is not paired.
  if (auto stale = queued_.find(sw.prev_pid); stale != queued_.end()) {
    uint64_t id = stale->second.wait_id;
    queued_.erase(stale);
    Dropped(id, WakeDropReason::kRanUnseen, event.ts_ns);
  }
  auto queued = queued_.find(sw.next_pid);
  if (queued == queued_.end()) return;
  WakeRunFact run;
  run.wait_id = queued->second.wait_id;
  run.pid = sw.next_pid;
  run.waking_ns = queued->second.waking_ns;
  run.run_ns = event.ts_ns;
  run.cpu = event.cpu;
  run.queue_cpu = queued->second.cpu;
  run.comm = sw.next_comm;
  run.prio = sw.next_prio;
  queued_.erase(queued);
  bus_->Each([&](FactListener& listener) { listener.OnWakeRan(run); });
}

// Lost events on a CPU: a task queued there may have been switched in unseen.
void WakeWaitProducer::Lost(const Event& event) {
  std::vector<uint64_t> dropped;
  for (auto it = queued_.begin(); it != queued_.end();) {
    if (it->second.cpu != event.cpu) {
      ++it;
      continue;
    }
    dropped.push_back(it->second.wait_id);
    queued_.erase(it++);
  }
  std::sort(dropped.begin(), dropped.end());
  for (uint64_t id : dropped) Dropped(id, WakeDropReason::kLostEvents, event.ts_ns);
}

}  // namespace napiscope::internal
