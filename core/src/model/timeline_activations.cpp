#include "model/timeline_activations.h"

#include <limits>

namespace napiscope::internal {
namespace {

constexpr TimestampNs kNever = std::numeric_limits<TimestampNs>::min();

bool IsThreadClass(TaskClass task_class) { return ServesSoftirqs(task_class); }

template <typename T>
T& At(std::vector<T>& values, size_t index, const T& fill) {
  if (index >= values.size()) values.resize(index + 1, fill);
  return values[index];
}

ActivationKind KindOf(TaskClass task_class) {
  switch (task_class) {
    case TaskClass::kNapiKthread:
      return ActivationKind::kNapiKthread;
    case TaskClass::kKsoftirqd:
    case TaskClass::kSoftirqThread:
      return ActivationKind::kKsoftirqd;
    default:
      return ActivationKind::kIrqThread;
  }
}

}  // namespace

void ActivationPairer::OnBegin(const TraceContext& context) { context_ = &context; }

ActivationPairer::Thread* ActivationPairer::Find(int32_t pid) {
  auto it = threads_.find(pid);
  return it == threads_.end() ? nullptr : &it->second;
}

ActivationPairer::Thread* ActivationPairer::Track(int32_t pid, StringId comm, int16_t prio) {
  if (Thread* known = Find(pid)) return known;
  if (context_ == nullptr || pid <= 0) return nullptr;
  std::string_view text = context_->strings.Get(comm);
  TaskClass task_class = ClassifyTask(pid, text, prio);
  if (!IsThreadClass(task_class)) return nullptr;
  Thread& thread = threads_[pid];
  thread.task_class = task_class;
  thread.comm = comm;
  if (task_class == TaskClass::kIrqThread && ParseIrqThreadName(text, &thread.irq)) {
    irq_threads_[thread.irq].push_back(pid);
    // Its hard IRQ may have fired before the thread showed up in any event.
    if (auto it = unclaimed_irqs_.find(thread.irq); it != unclaimed_irqs_.end()) {
      thread.pending = true;
      thread.pending_ns = it->second.first;
      thread.pending_cpu = it->second.second;
      unclaimed_irqs_.erase(it);
    }
  }
  return &thread;
}

// A wakeup of a running or already woken thread changes nothing: the first one counts.
void ActivationPairer::Wakeup(Thread& thread, int cpu, TimestampNs ts_ns) {
  if (thread.running_cpu >= 0 || thread.pending) return;
  thread.pending = true;
  thread.pending_ns = ts_ns;
  thread.pending_cpu = cpu;
}

void ActivationPairer::SwitchIn(int32_t pid, Thread& thread, int cpu, TimestampNs ts_ns,
                                bool exact) {
  thread.running_cpu = cpu;
  if (!thread.pending) return;
  thread.pending = false;
  // Lost events on either CPU since the wakeup: the pair is unknown, not an activation.
  if (At(last_gap_ns_, cpu, kNever) > thread.pending_ns ||
      At(last_gap_ns_, thread.pending_cpu, kNever) > thread.pending_ns) {
    return;
  }
  Activation activation;
  activation.from_ns = thread.pending_ns;
  activation.to_ns = ts_ns;
  activation.pid = pid;
  activation.irq = thread.task_class == TaskClass::kIrqThread ? thread.irq : -1;
  activation.comm = thread.comm;
  activation.from_cpu = static_cast<uint16_t>(thread.pending_cpu);
  activation.to_cpu = static_cast<uint16_t>(cpu);
  activation.kind = KindOf(thread.task_class);
  activation.exact = exact;
  activations_.push_back(activation);
}

void ActivationPairer::SwitchOut(int cpu) {
  int32_t pid = At(current_, cpu, -1);
  if (Thread* thread = Find(pid); thread != nullptr && thread->running_cpu == cpu) {
    thread->running_cpu = -1;
  }
}

void ActivationPairer::OnEvent(const Event& event) {
  int cpu = event.cpu;
  int32_t& current = At(current_, cpu, -1);
  if (event.kind == EventKind::kMissedEvents) {
    SwitchOut(cpu);
    current = -1;
    At(last_gap_ns_, cpu, kNever) = event.ts_ns;
    return;
  }
  if (event.kind == EventKind::kSchedSwitch) {
    const SchedSwitchFields& s = event.sched_switch;
    Track(s.prev_pid, s.prev_comm, s.prev_prio);
    current = s.prev_pid;
    SwitchOut(cpu);
    current = s.next_pid;
    if (Thread* next = Track(s.next_pid, s.next_comm, s.next_prio)) {
      SwitchIn(s.next_pid, *next, cpu, event.ts_ns, true);
    }
    return;
  }
  if (current != event.pid) {
    // A task runs whose switch-in was not recorded (or the CPU's first event): it started at
    // some unknown time before this event.
    bool first_seen = current == -1;
    SwitchOut(cpu);
    current = event.pid;
    StringId comm = context_ ? context_->tasks.CommAt(event.pid, event.ts_ns) : 0;
    if (Thread* thread = Track(event.pid, comm, -1)) {
      if (first_seen) thread->pending = false;  // it was running before we could see it start
      SwitchIn(event.pid, *thread, cpu, event.ts_ns, false);
    }
  }
  switch (event.kind) {
    case EventKind::kIrqHandlerEntry: {
      auto it = irq_threads_.find(event.irq.irq);
      if (it == irq_threads_.end()) {
        unclaimed_irqs_.try_emplace(event.irq.irq, event.ts_ns, cpu);
        break;
      }
      for (int32_t pid : it->second) Wakeup(threads_[pid], cpu, event.ts_ns);
      break;
    }
    case EventKind::kSchedMigrateTask:
      Track(event.migrate.pid, event.migrate.comm, event.migrate.prio);
      break;
    case EventKind::kSchedWaking:
      if (Thread* thread = Track(event.wake.pid, event.wake.comm, event.wake.prio);
          thread != nullptr && thread->task_class != TaskClass::kIrqThread) {
        Wakeup(*thread, cpu, event.ts_ns);
      }
      break;
    default:
      break;
  }
}

std::vector<Activation> ActivationPairer::Take() {
  std::vector<Activation> taken = std::move(activations_);
  *this = ActivationPairer();
  return taken;
}

}  // namespace napiscope::internal
