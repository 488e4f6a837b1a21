#include "analysis/context_runtime.h"

#include <algorithm>

namespace napiscope::internal {

void ContextRuntime::OnInterval(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  if (frame.kind == ContextKind::kSoftirq) {
    Softirq(interval);
    return;
  }
  if (frame.kind != ContextKind::kHardirq) return;
  if (!frame.start_known || !interval.end_known || !window_.Contains(frame.start_ns)) return;
  hardirqs_[{frame.cpu, frame.irq, frame.name}].Add(interval.end_ns - frame.start_ns,
                                                    frame.start_ns);
}

void ContextRuntime::Softirq(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  int32_t task_key = frame.pid != 0 ? frame.pid : -1 - static_cast<int32_t>(frame.cpu);
  auto key = std::make_tuple(task_key, frame.vec, frame.depth);
  int64_t piece_ns = interval.end_ns - frame.start_ns;
  Suspended run{frame.cpu, frame.start_ns, piece_ns, frame.start_known};
  bool preempted = false;
  if (frame.resumed) {
    auto earlier = suspended_.find(key);
    if (earlier == suspended_.end()) {
      run.start_known = false;  // its first piece was before the trace or a gap
    } else {
      run = earlier->second;
      run.on_cpu_ns += piece_ns;
      suspended_.erase(earlier);
      preempted = true;
    }
  }
  if (interval.suspended) {
    suspended_[key] = run;
    return;
  }
  if (!run.start_known || !interval.end_known || !window_.Contains(run.start_ns)) return;
  SoftirqState& state = softirqs_[{run.cpu, frame.vec}];
  state.runs.Add(run.on_cpu_ns, run.start_ns);
  if (preempted) ++state.preempted_runs;
}

std::vector<SoftirqRuntimeRow> ContextRuntime::SoftirqRows() const {
  std::vector<SoftirqRuntimeRow> rows;
  for (const auto& [key, state] : softirqs_) {
    SoftirqRuntimeRow row;
    row.cpu = key.first;
    row.vec = key.second;
    row.run = state.runs.Stats();
    row.preempted_runs = state.preempted_runs;
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [](const SoftirqRuntimeRow& a, const SoftirqRuntimeRow& b) {
    return std::tie(a.cpu, a.vec) < std::tie(b.cpu, b.vec);
  });
  return rows;
}

std::vector<HardirqRuntimeRow> ContextRuntime::HardirqRows(const TraceContext& context) const {
  std::vector<HardirqRuntimeRow> rows;
  for (const auto& [key, runs] : hardirqs_) {
    HardirqRuntimeRow row;
    row.cpu = std::get<0>(key);
    row.irq = std::get<1>(key);
    row.name = std::string(context.strings.Get(std::get<2>(key)));
    row.run = runs.Stats();
    rows.push_back(std::move(row));
  }
  // By name, not string id: ids depend on the loader, the report must not.
  std::sort(rows.begin(), rows.end(), [](const HardirqRuntimeRow& a, const HardirqRuntimeRow& b) {
    return std::tie(a.cpu, a.irq, a.name) < std::tie(b.cpu, b.irq, b.name);
  });
  return rows;
}

}  // namespace napiscope::internal
