#include "napiscope/trace_summary.h"

#include <algorithm>

namespace napiscope {
namespace {

// Each CPU's gaps from the file's marks, a row for each of the trace's CPUs.
std::vector<CpuMissedSummary> MissedPerCpu(const std::vector<MissedEventsMark>& missed, size_t cpus,
                                           TimestampNs first_ts_ns) {
  std::vector<CpuMissedSummary> rows(cpus);
  for (size_t cpu = 0; cpu < cpus; ++cpu) rows[cpu].cpu = static_cast<int>(cpu);
  for (const MissedEventsMark& mark : missed) {
    if (mark.cpu >= cpus) continue;
    CpuMissedSummary& row = rows[mark.cpu];
    row.only_leading = (row.gaps == 0 || row.only_leading) && mark.last_before_ns < 0;
    ++row.gaps;
    row.lost_ns += std::max<TimestampNs>(
        0, mark.ts_ns - (mark.last_before_ns >= 0 ? mark.last_before_ns : first_ts_ns));
    if (mark.count < 0) {
      row.some_unknown = true;
    } else {
      row.events += mark.count;
    }
  }
  return rows;
}

}  // namespace

void TraceSummaryBuilder::OnBegin(const TraceContext& context) {
  cpu_spans_.assign(static_cast<size_t>(std::max(context.meta.cpus, 0)), CpuEventSpan{});
}

void TraceSummaryBuilder::CountGrowing(const Event& event) {
  if (event.cpu >= cpu_spans_.size()) cpu_spans_.resize(event.cpu + 1u);
  CountOnSpan(cpu_spans_[event.cpu], event.ts_ns);
  if (event.name >= per_name_cpu_.size()) per_name_cpu_.resize(event.name + 1);
  std::vector<int64_t>& per_cpu = per_name_cpu_[event.name];
  if (event.cpu < per_cpu.size()) {
    ++per_cpu[event.cpu];
    return;
  }
  // As far as the name's own CPUs go: one event of a corrupt high CPU number must not give
  // every name a counter for each CPU up to it.
  size_t growth = event.cpu + 1u - per_cpu.size();
  if (dense_counters_ + growth <= kDenseCounterBudget) {
    dense_counters_ += growth;
    per_cpu.resize(event.cpu + 1u, 0);
    ++per_cpu[event.cpu];
    return;
  }
  ++sparse_counts_[uint64_t{event.name} << 32 | event.cpu];
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
  summary.counts = NameCounts(context);
  summary.missed = context.missed;
  summary.missed_per_cpu = MissedPerCpu(context.missed, cpus, summary.first_ts_ns);
  summary.tasks = context.tasks.size();
  return summary;
}

std::vector<EventNameCount> TraceSummaryBuilder::NameCounts(const TraceContext& context) const {
  // The counters beyond the budget, by name and then CPU.
  std::vector<std::pair<uint64_t, int64_t>> sparse(sparse_counts_.begin(), sparse_counts_.end());
  std::sort(sparse.begin(), sparse.end());
  auto next_sparse = sparse.begin();
  std::vector<EventNameCount> counts;
  for (size_t name = 0; name < per_name_cpu_.size(); ++name) {
    EventNameCount count;
    const std::vector<int64_t>& per_cpu = per_name_cpu_[name];
    for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
      if (per_cpu[cpu] > 0) count.per_cpu.push_back({static_cast<int>(cpu), per_cpu[cpu]});
    }
    // A name's sparse CPUs lie beyond its row: the row could not grow to them when they came,
    // and what is left of the budget only shrinks.
    for (; next_sparse != sparse.end() && next_sparse->first >> 32 == name; ++next_sparse) {
      count.per_cpu.push_back(
          {static_cast<int>(next_sparse->first & 0xffffffffu), next_sparse->second});
    }
    for (const CpuEventCount& c : count.per_cpu) count.total += c.events;
    if (count.total == 0) continue;
    count.name = std::string(context.strings.Get(static_cast<StringId>(name)));
    counts.push_back(std::move(count));
  }
  std::sort(counts.begin(), counts.end(),
            [](const EventNameCount& a, const EventNameCount& b) { return a.name < b.name; });
  return counts;
}

std::vector<int> TraceSummary::CpusWithEvents() const {
  std::vector<int> cpus;
  size_t count = std::max(events_per_cpu.size(), missed_per_cpu.size());
  for (size_t cpu = 0; cpu < count; ++cpu) {
    bool has_events = cpu < events_per_cpu.size() && events_per_cpu[cpu] > 0;
    bool has_gaps = cpu < missed_per_cpu.size() && missed_per_cpu[cpu].gaps > 0;
    if (has_events || has_gaps) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

}  // namespace napiscope
