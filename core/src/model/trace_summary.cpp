#include "napiscope/trace_summary.h"

#include <algorithm>

namespace napiscope {

void TraceSummaryBuilder::OnBegin(const TraceContext& context) {
  cpu_spans_.assign(static_cast<size_t>(std::max(context.meta.cpus, 0)), CpuEventSpan{});
}

void TraceSummaryBuilder::CountGrowing(const Event& event) {
  if (event.cpu >= cpu_spans_.size()) cpu_spans_.resize(event.cpu + 1u);
  if (event.name >= per_name_cpu_.size()) per_name_cpu_.resize(event.name + 1);
  std::vector<int64_t>& per_cpu = per_name_cpu_[event.name];
  // As far as the name's own CPUs go: one event of a corrupt high CPU number must not give
  // every name a counter for each CPU up to it.
  if (event.cpu >= per_cpu.size()) per_cpu.resize(event.cpu + 1u, 0);
  ++per_cpu[event.cpu];
  CountOnSpan(cpu_spans_[event.cpu], event.ts_ns);
}

TraceSummary TraceSummaryBuilder::Finish(const TraceContext& context) const {
  TraceSummary summary;
  summary.meta = context.meta;
  size_t cpus = std::max<size_t>(cpu_spans_.size(), static_cast<size_t>(context.meta.cpus));
  summary.events_per_cpu.assign(cpus, 0);
  for (size_t cpu = 0; cpu < cpu_spans_.size(); ++cpu) {
    const CpuEventSpan& span = cpu_spans_[cpu];
    if (span.events == 0) continue;
    summary.first_ts_ns =
        summary.events == 0 ? span.first_ns : std::min(summary.first_ts_ns, span.first_ns);
    summary.last_ts_ns = std::max(summary.last_ts_ns, span.last_ns);
    summary.events += span.events;
    summary.events_per_cpu[cpu] = span.events;
  }
  for (size_t name = 0; name < per_name_cpu_.size(); ++name) {
    const std::vector<int64_t>& per_cpu = per_name_cpu_[name];
    if (per_cpu.empty()) continue;
    EventNameCount count;
    count.name = std::string(context.strings.Get(static_cast<StringId>(name)));
    count.per_cpu = per_cpu;
    count.per_cpu.resize(cpus, 0);
    for (int64_t n : per_cpu) count.total += n;
    if (count.total > 0) summary.counts.push_back(std::move(count));
  }
  std::sort(summary.counts.begin(), summary.counts.end(),
            [](const EventNameCount& a, const EventNameCount& b) { return a.name < b.name; });
  summary.missed = context.missed;
  for (size_t cpu = 0; cpu < cpus; ++cpu) {
    CpuMissedSummary row;
    row.cpu = static_cast<int>(cpu);
    for (const MissedEventsMark& mark : context.missed) {
      if (mark.cpu != cpu) continue;
      ++row.gaps;
      row.lost_ns += std::max<TimestampNs>(
          0, mark.ts_ns - (mark.last_before_ns >= 0 ? mark.last_before_ns : summary.first_ts_ns));
      if (mark.count < 0) {
        row.some_unknown = true;
      } else {
        row.events += mark.count;
      }
    }
    summary.missed_per_cpu.push_back(row);
  }
  summary.tasks = context.tasks.size();
  return summary;
}

}  // namespace napiscope
