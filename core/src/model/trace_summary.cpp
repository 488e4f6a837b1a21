#include "napiscope/trace_summary.h"

#include <algorithm>

namespace napiscope {

void TraceSummaryBuilder::OnBegin(const TraceContext& context) {
  stride_ = std::max(1, context.meta.cpus);
  counts_.clear();
}

void TraceSummaryBuilder::OnEvent(const Event& event) {
  if (event.kind == EventKind::kMissedEvents) return;
  if (events_ == 0) first_ts_ns_ = event.ts_ns;
  last_ts_ns_ = std::max(last_ts_ns_, event.ts_ns);
  ++events_;
  size_t index = event.name * stride_ + event.cpu;
  if (event.cpu >= stride_ || index >= counts_.size()) {
    Grow(event.name, event.cpu);
    index = event.name * stride_ + event.cpu;
  }
  ++counts_[index];
}

void TraceSummaryBuilder::Grow(StringId name, uint16_t cpu) {
  size_t names = std::max<size_t>(counts_.size() / stride_, name + size_t{1});
  size_t stride = std::max<size_t>(stride_, cpu + size_t{1});
  if (stride != stride_) {
    std::vector<int64_t> wider(names * stride, 0);
    for (size_t i = 0; i < counts_.size(); ++i) {
      wider[i / stride_ * stride + i % stride_] = counts_[i];
    }
    counts_ = std::move(wider);
    stride_ = stride;
  }
  counts_.resize(names * stride_, 0);
}

TraceSummary TraceSummaryBuilder::Finish(const TraceContext& context) const {
  TraceSummary summary;
  summary.meta = context.meta;
  summary.events = events_;
  summary.first_ts_ns = first_ts_ns_;
  summary.last_ts_ns = last_ts_ns_;
  size_t cpus = std::max<size_t>(stride_, static_cast<size_t>(context.meta.cpus));
  summary.events_per_cpu.assign(cpus, 0);
  for (size_t name = 0; name < counts_.size() / stride_; ++name) {
    EventNameCount count;
    count.per_cpu.assign(cpus, 0);
    for (size_t cpu = 0; cpu < stride_; ++cpu) {
      int64_t n = counts_[name * stride_ + cpu];
      count.per_cpu[cpu] = n;
      summary.events_per_cpu[cpu] += n;
      count.total += n;
    }
    if (count.total == 0) continue;
    count.name = std::string(context.strings.Get(static_cast<StringId>(name)));
    summary.counts.push_back(std::move(count));
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
          0, mark.ts_ns - (mark.last_before_ns >= 0 ? mark.last_before_ns : first_ts_ns_));
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
