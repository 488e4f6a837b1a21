#include "analysis/thread_activity.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace napiscope::internal {
namespace {

constexpr TimestampNs kNever = std::numeric_limits<TimestampNs>::min();

bool IsThreadClass(TaskClass task_class) { return ServesSoftirqs(task_class); }

template <typename T>
T& At(std::vector<T>& v, size_t index, const T& fill) {
  if (index >= v.size()) v.resize(index + 1, fill);
  return v[index];
}

}  // namespace

ThreadActivity::Thread* ThreadActivity::Find(int32_t pid) {
  auto it = threads_.find(pid);
  return it == threads_.end() ? nullptr : &it->second;
}

ThreadActivity::Thread* ThreadActivity::Track(int32_t pid, StringId comm, int16_t prio) {
  if (Thread* known = Find(pid)) {
    if (prio >= 0) known->prio = prio;
    return known;
  }
  if (context_ == nullptr || pid <= 0) return nullptr;
  std::string_view text = context_->strings.Get(comm);
  TaskClass task_class = ClassifyTask(pid, text, prio);
  if (!IsThreadClass(task_class)) return nullptr;
  Thread& thread = threads_[pid];
  thread.task_class = task_class;
  thread.pid = pid;
  thread.comm = comm;
  thread.prio = prio;
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

void ThreadActivity::Wakeup(Thread& thread, int cpu, TimestampNs ts_ns) {
  if (thread.running_cpu >= 0 || thread.pending) return;
  thread.pending = true;
  thread.pending_ns = ts_ns;
  thread.pending_cpu = cpu;
}

void ThreadActivity::SwitchIn(Thread& thread, int cpu, TimestampNs ts_ns, bool exact) {
  thread.running_cpu = cpu;
  if (!thread.pending) return;
  thread.pending = false;
  if (!window_.Contains(thread.pending_ns)) return;
  ThreadActivityRow& c = thread.counts;
  TimestampNs gap_here = At(last_gap_ns_, cpu, kNever);
  TimestampNs gap_there = At(last_gap_ns_, thread.pending_cpu, kNever);
  if (gap_here > thread.pending_ns || gap_there > thread.pending_ns) {
    ++c.dropped_activations;
    return;
  }
  ++c.activations;
  bool cross = thread.pending_cpu != cpu;
  if (cross) ++c.cross_cpu_activations;
  ++c.activation_paths[{thread.pending_cpu, cpu}];
  if (!exact) {
    ++c.inexact_activations;
    return;
  }
  (cross ? thread.cross_cpu : thread.same_cpu).Add(ts_ns - thread.pending_ns, thread.pending_ns);
}

void ThreadActivity::SwitchOut(int cpu) {
  int32_t pid = At(current_, cpu, -1);
  if (Thread* thread = Find(pid); thread != nullptr && thread->running_cpu == cpu) {
    thread->running_cpu = -1;
  }
}

void ThreadActivity::OnEvent(const Event& event) {
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
      SwitchIn(*next, cpu, event.ts_ns, true);
    }
    return;
  }
  if (current != event.pid) {
    // A task runs whose switch-in was not recorded (or the CPU's first event): it started at
    // some unknown time before this event.
    bool first_seen = current == -1;
    SwitchOut(cpu);
    current = event.pid;
    Thread* thread = Track(event.pid, context_ ? context_->tasks.CommAt(event.pid, event.ts_ns) : 0,
                           -1);
    if (thread != nullptr) {
      if (first_seen) thread->pending = false;  // it was running before we could see it start
      SwitchIn(*thread, cpu, event.ts_ns, false);
    }
  }
  switch (event.kind) {
    case EventKind::kIrqHandlerEntry: {
      int32_t irq = event.irq.irq;
      if (window_.Contains(event.ts_ns)) ++hardirq_cpus_[irq][cpu];
      if (event.irq.handler != 0) irq_handlers_[irq] = event.irq.handler;
      auto it = irq_threads_.find(irq);
      if (it == irq_threads_.end()) {
        unclaimed_irqs_.try_emplace(irq, event.ts_ns, cpu);
        break;
      }
      for (int32_t pid : it->second) Wakeup(threads_[pid], cpu, event.ts_ns);
      break;
    }
    case EventKind::kSchedWaking:
      if (Thread* thread = Track(event.wake.pid, event.wake.comm, event.wake.prio);
          thread != nullptr && thread->task_class != TaskClass::kIrqThread) {
        Wakeup(*thread, cpu, event.ts_ns);
      }
      break;
    case EventKind::kSchedMigrateTask:
      if (Thread* thread = Track(event.migrate.pid, event.migrate.comm, event.migrate.prio);
          thread != nullptr && window_.Contains(event.ts_ns)) {
        ++thread->counts.migrations;
      }
      break;
    default:
      break;
  }
}

void ThreadActivity::OnInterval(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  if (frame.kind != ContextKind::kTask || !IsThreadClass(frame.task_class)) return;
  Thread* thread = Track(frame.pid, frame.name, frame.prio);
  if (thread == nullptr) return;
  TimestampNs start = std::max(frame.start_ns, window_.from_ns);
  TimestampNs end = std::min(interval.end_ns, window_.to_ns);
  if (end < start) return;
  ThreadActivityRow& c = thread->counts;
  c.run_ns_by_cpu[frame.cpu] += end - start;
  ++c.runs;
  if (thread->last_run_cpu >= 0 && thread->last_run_cpu != frame.cpu) ++c.cpu_changes;
  thread->last_run_cpu = frame.cpu;
}

std::vector<ThreadActivityRow> ThreadActivity::Rows(TimestampNs span_ns) const {
  std::vector<ThreadActivityRow> rows;
  for (const auto& [pid, thread] : threads_) {
    ThreadActivityRow row = thread.counts;
    row.task_class = thread.task_class;
    row.pid = pid;
    row.comm = context_ ? std::string(context_->strings.Get(thread.comm)) : "";
    row.prio = thread.prio;
    row.irq = thread.irq;
    if (thread.irq >= 0) {
      if (auto it = hardirq_cpus_.find(thread.irq); it != hardirq_cpus_.end()) {
        row.hardirq_cpus = it->second;
      }
      if (auto it = irq_handlers_.find(thread.irq); it != irq_handlers_.end() && context_) {
        row.irq_handler = std::string(context_->strings.Get(it->second));
      }
    }
    row.cpu_changes_per_s = span_ns > 0 ? row.cpu_changes * 1e9 / span_ns : 0;
    row.wake_to_run_same_cpu = thread.same_cpu.Stats();
    row.wake_to_run_cross_cpu = thread.cross_cpu.Stats();
    if (row.runs == 0 && row.activations == 0 && row.dropped_activations == 0) continue;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const ThreadActivityRow& a, const ThreadActivityRow& b) {
    return std::tie(a.task_class, a.irq, a.comm, a.pid) < std::tie(b.task_class, b.irq, b.comm, b.pid);
  });
  return rows;
}

}  // namespace napiscope::internal
