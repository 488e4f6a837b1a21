#include "model/thread_activation_producer.h"

#include <limits>

#include "model/irq_source.h"
#include "model/wake_wait_producer.h"

namespace napiscope::internal {
namespace {

constexpr TimestampNs kNoGapYet = std::numeric_limits<TimestampNs>::min();

template <typename T>
T& GrowAt(std::vector<T>& values, size_t index, const T& fill) {
  if (index >= values.size()) values.resize(index + 1, fill);
  return values[index];
}

}  // namespace

bool ThreadActivationProducer::IsRunning(int32_t pid) const {
  for (int32_t current : current_) {
    if (current == pid) return true;
  }
  return false;
}

ThreadActivationProducer::Thread* ThreadActivationProducer::FindThread(int32_t pid) {
  auto it = threads_.find(pid);
  return it == threads_.end() ? nullptr : &it->second;
}

const ServiceThread* ThreadActivationProducer::Find(int32_t pid) const {
  auto it = threads_.find(pid);
  return it == threads_.end() ? nullptr : &it->second.info;
}

std::vector<ServiceThread> ThreadActivationProducer::Threads() const {
  std::vector<ServiceThread> threads;
  threads.reserve(threads_.size());
  for (const auto& [pid, thread] : threads_) threads.push_back(thread.info);
  return threads;
}

// The class is decided when a thread is first seen by a name that makes it a service thread;
// a known thread only learns its latest priority.
ThreadActivationProducer::Thread* ThreadActivationProducer::Track(int32_t pid, StringId comm,
                                                                  int16_t prio) {
  if (pid <= 0) return nullptr;  // the idle task (half of all switches) is never tracked
  if (Thread* known = FindThread(pid)) {
    if (prio >= 0) known->info.prio = prio;
    return known;
  }
  if (context_ == nullptr) return nullptr;
  TaskClass task_class = classifier_.Classify(&context_->tasks, pid, comm, context_->strings, prio);
  if (!IsServiceThreadClass(task_class)) return nullptr;
  std::string_view text = context_->strings.Get(comm);
  Thread& thread = threads_[pid];
  thread.info.task_class = task_class;
  thread.info.pid = pid;
  thread.info.comm = comm;
  thread.info.prio = prio;
  if (task_class == TaskClass::kIrqThread) {
    thread.info.irq = IrqOfThread(&context_->tasks, pid, text);
  }
  if (thread.info.irq >= 0) {
    irq_threads_[thread.info.irq].push_back(pid);
    // Its hard IRQ may have fired before the thread showed up in any event.
    if (auto it = unclaimed_irqs_.find(thread.info.irq); it != unclaimed_irqs_.end()) {
      thread.pending = true;
      thread.pending_ns = it->second.first;
      thread.pending_cpu = it->second.second;
      thread.pending_source = {{thread.info.irq, false}, true};
      unclaimed_irqs_.erase(it);
    }
  }
  bus_->Each([&](FactListener& listener) { listener.OnServiceThread(thread.info); });
  return &thread;
}

void ThreadActivationProducer::OnTaskInterval(int32_t pid, StringId comm, int16_t prio) {
  Track(pid, comm, prio);
}

// A wakeup of a running or already woken thread changes nothing: the first one counts.
void ThreadActivationProducer::Wakeup(Thread& thread, int cpu, TimestampNs ts_ns,
                                      IrqSource source) {
  if (thread.running_cpu >= 0 || thread.pending) return;
  thread.pending = true;
  thread.pending_waking = false;
  thread.pending_ns = ts_ns;
  thread.pending_cpu = cpu;
  thread.pending_source = source;
}

// A waking pairs as wake-to-run waits do (docs/definitions.md): the kernel traces sched_waking
// only for a task that sleeps, so a second one while the first is pending means the thread ran
// and slept in between, unseen: the first is unknown and the activation begins again here.
void ThreadActivationProducer::Waking(Thread& thread, int cpu, TimestampNs ts_ns,
                                      IrqSource source) {
  if (wakes_ != nullptr && thread.running_cpu < 0 && thread.pending && thread.pending_waking) {
    Activated(thread, thread.pending_cpu, ts_ns, false, true);
  }
  bool was_pending = thread.pending;
  Wakeup(thread, cpu, ts_ns, source);
  if (!was_pending && thread.pending) thread.pending_waking = true;
}

void ThreadActivationProducer::SwitchIn(Thread& thread, int cpu, TimestampNs ts_ns, bool exact) {
  thread.running_cpu = cpu;
  if (!thread.pending) return;
  bool lost = false;
  if (thread.pending_waking && wakes_ != nullptr) {
    // Unknown when the wake-to-run wait was dropped: events lost on the CPU it was queued on,
    // or it ran unseen (docs/definitions.md, "Wake-to-run waits").
    lost = wakes_->QueuedWakingNs(thread.info.pid) != thread.pending_ns;
  } else {
    // Lost events on either CPU since the hard IRQ: the pair is unknown, not an activation.
    lost = GrowAt(last_gap_ns_, cpu, kNoGapYet) > thread.pending_ns ||
           GrowAt(last_gap_ns_, thread.pending_cpu, kNoGapYet) > thread.pending_ns;
  }
  Activated(thread, cpu, ts_ns, exact, lost);
}

void ThreadActivationProducer::Activated(Thread& thread, int cpu, TimestampNs ts_ns, bool exact,
                                         bool lost) {
  thread.pending = false;
  thread.pending_waking = false;
  ThreadActivationFact activation;
  activation.woken_ns = thread.pending_ns;
  activation.run_ns = ts_ns;
  activation.pid = thread.info.pid;
  activation.irq = thread.info.task_class == TaskClass::kIrqThread ? thread.info.irq : -1;
  activation.comm = thread.info.comm;
  activation.task_class = thread.info.task_class;
  activation.from_cpu = static_cast<uint16_t>(thread.pending_cpu);
  activation.to_cpu = static_cast<uint16_t>(cpu);
  activation.exact = exact;
  activation.source = thread.pending_source;
  activation.lost = lost;
  bus_->Each([&](FactListener& listener) { listener.OnThreadActivation(activation); });
}

void ThreadActivationProducer::SwitchOut(int cpu) {
  int32_t pid = GrowAt(current_, cpu, -1);
  SwitchOut(pid > 0 ? FindThread(pid) : nullptr, cpu);
}

void ThreadActivationProducer::SwitchOut(Thread* thread, int cpu) {
  if (thread != nullptr && thread->running_cpu == cpu) thread->running_cpu = -1;
}

void ThreadActivationProducer::Switched(uint16_t cpu, TimestampNs ts_ns, int32_t prev_pid,
                                        int32_t next_pid, bool exact) {
  TaskSwitchFact change{ts_ns, cpu, prev_pid, next_pid, exact};
  bus_->Each([&](FactListener& listener) { listener.OnTaskSwitch(change); });
}

void ThreadActivationProducer::HardIrq(const Event& event) {
  auto it = irq_threads_.find(event.irq.irq);
  if (it == irq_threads_.end()) {
    unclaimed_irqs_.try_emplace(event.irq.irq, event.ts_ns, event.cpu);
    return;
  }
  for (int32_t pid : it->second) {
    Wakeup(threads_[pid], event.cpu, event.ts_ns, IrqSource{{event.irq.irq, false}, true});
  }
}

void ThreadActivationProducer::Apply(const Event& event) {
  int cpu = event.cpu;
  int32_t& current = GrowAt(current_, cpu, -1);
  if (event.kind == EventKind::kMissedEvents) {
    int32_t before = current;
    SwitchOut(cpu);
    current = -1;
    GrowAt(last_gap_ns_, cpu, kNoGapYet) = event.ts_ns;
    if (before != -1) Switched(event.cpu, event.ts_ns, before, -1, false);
    return;
  }
  if (event.kind == EventKind::kSchedSwitch) {
    const SchedSwitchFields& s = event.sched_switch;
    SwitchOut(Track(s.prev_pid, s.prev_comm, s.prev_prio), cpu);  // prev_pid is the current
    current = s.next_pid;
    Switched(event.cpu, event.ts_ns, s.prev_pid, s.next_pid, true);
    if (Thread* next = Track(s.next_pid, s.next_comm, s.next_prio)) {
      SwitchIn(*next, cpu, event.ts_ns, true);
    }
    return;
  }
  if (current != event.pid) {
    // A task runs whose switch-in was not recorded (or the CPU's first event): it started at
    // some unknown time before this event.
    int32_t before = current;
    SwitchOut(cpu);
    current = event.pid;
    Switched(event.cpu, event.ts_ns, before, event.pid, false);
    StringId comm = context_ ? context_->tasks.CommAt(event.pid, event.ts_ns) : 0;
    if (Thread* thread = Track(event.pid, comm, -1)) {
      if (before == -1) thread->pending = false;  // it was running before we could see it start
      SwitchIn(*thread, cpu, event.ts_ns, false);
    }
  }
  switch (event.kind) {
    case EventKind::kIrqHandlerEntry:
      HardIrq(event);
      break;
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
      if (context_ == nullptr || !context_->tasks.IsWake(event)) break;
      if (Thread* thread = Track(event.wake.pid, event.wake.comm, event.wake.prio);
          thread != nullptr && thread->info.task_class != TaskClass::kIrqThread) {
        Waking(*thread, cpu, event.ts_ns, IrqSourceAt(tracker_, *this, event.cpu));
      }
      break;
    case EventKind::kSchedMigrateTask:
      if (Track(event.migrate.pid, event.migrate.comm, event.migrate.prio) != nullptr) {
        ThreadMigrationFact migration{event.ts_ns, event.migrate.pid, event.migrate.orig_cpu,
                                      event.migrate.dest_cpu};
        bus_->Each([&](FactListener& listener) { listener.OnThreadMigration(migration); });
      }
      break;
    default:
      break;
  }
}

}  // namespace napiscope::internal
