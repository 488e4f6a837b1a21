#include "analysis/thread_activity.h"

#include <algorithm>
#include <tuple>

namespace napiscope::internal {

void ThreadActivity::OnThreadActivation(const ThreadActivationFact& activation) {
  if (!window_.Contains(activation.woken_ns)) return;
  Counts& thread = threads_[activation.pid];
  ThreadActivityRow& c = thread.counts;
  if (activation.lost) {
    ++c.dropped_activations;
    return;
  }
  ++c.activations;
  if (activation.cross_cpu()) ++c.cross_cpu_activations;
  ++c.activation_paths[{activation.from_cpu, activation.to_cpu}];
  if (!activation.exact) {
    ++c.inexact_activations;
    return;
  }
  (activation.cross_cpu() ? thread.cross_cpu : thread.same_cpu)
      .Add(activation.run_ns - activation.woken_ns, activation.woken_ns);
}

void ThreadActivity::OnThreadMigration(const ThreadMigrationFact& migration) {
  if (window_.Contains(migration.ts_ns)) ++threads_[migration.pid].counts.migrations;
}

void ThreadActivity::OnEvent(const Event& event) {
  if (event.kind != EventKind::kIrqHandlerEntry) return;
  bool in_window = window_.Contains(event.ts_ns);
  if (!in_window && event.irq.handler == 0) return;
  HardIrq& hardirq = hardirqs_[event.irq.irq];  // one probe for both
  if (in_window) ++hardirq.cpus[event.cpu];
  if (event.irq.handler != 0) hardirq.handler = event.irq.handler;
}

void ThreadActivity::OnInterval(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  if (frame.kind != ContextKind::kTask) return;
  if (!IsServiceThreadClass(frame.task_class)) return;
  if (facts_->FindServiceThread(frame.pid) == nullptr) return;
  TimestampNs start = std::max(frame.start_ns, window_.from_ns);
  TimestampNs end = std::min(interval.end_ns, window_.to_ns);
  if (end < start) return;
  Counts& thread = threads_[frame.pid];
  ThreadActivityRow& c = thread.counts;
  c.run_ns_by_cpu[frame.cpu] += end - start;
  ++c.runs;
  if (thread.last_run_cpu >= 0 && thread.last_run_cpu != frame.cpu) ++c.cpu_changes;
  thread.last_run_cpu = frame.cpu;
}

std::vector<ThreadActivityRow> ThreadActivity::Rows(TimestampNs span_ns) const {
  std::vector<ThreadActivityRow> rows;
  for (const ServiceThread& thread : facts_->ServiceThreads()) {
    auto counted = threads_.find(thread.pid);
    if (counted == threads_.end()) continue;
    const Counts& counts = counted->second;
    ThreadActivityRow row = counts.counts;
    row.task_class = thread.task_class;
    row.pid = thread.pid;
    row.comm = context_ ? std::string(context_->strings.Get(thread.comm)) : "";
    row.prio = thread.prio;
    row.irq = thread.irq;
    if (auto it = hardirqs_.find(thread.irq); thread.irq >= 0 && it != hardirqs_.end()) {
      row.hardirq_cpus = it->second.cpus;
      if (it->second.handler != 0 && context_) {
        row.irq_handler = std::string(context_->strings.Get(it->second.handler));
      }
    }
    row.cpu_changes_per_s = span_ns > 0 ? row.cpu_changes * 1e9 / span_ns : 0;
    row.migrations_per_s = span_ns > 0 ? row.migrations * 1e9 / span_ns : 0;
    row.wake_to_run_same_cpu = counts.same_cpu.Stats();
    row.wake_to_run_cross_cpu = counts.cross_cpu.Stats();
    if (row.runs == 0 && row.activations == 0 && row.dropped_activations == 0) continue;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const ThreadActivityRow& a, const ThreadActivityRow& b) {
    return std::tie(a.task_class, a.irq, a.comm, a.pid) < std::tie(b.task_class, b.irq, b.comm, b.pid);
  });
  return rows;
}

}  // namespace napiscope::internal
