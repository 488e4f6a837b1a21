#include "analysis/wake_latency.h"

#include <algorithm>
#include <limits>

namespace napiscope::internal {
namespace {

constexpr TimestampNs kOpen = std::numeric_limits<TimestampNs>::max();

int64_t LatencyOf(const auto& wait) { return wait.switch_in_ns - wait.waking_ns; }

}  // namespace

WakeLatency::WakeLatency(const ContextTracker* tracker, const AnalysisWindow& window)
    : tracker_(tracker), window_(window) {}

WakeLatency::CpuState& WakeLatency::Grow(uint16_t cpu) {
  cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

void WakeLatency::OnEnd() {
  std::vector<uint64_t> done;
  for (auto& [id, wait] : waits_) {
    if (wait.switched_in) done.push_back(id);
  }
  std::sort(done.begin(), done.end());
  for (CpuState& cpu : cpus_) cpu.spans.clear();
  for (uint64_t id : done) Finish(id);
  waits_.clear();
}

void WakeLatency::OnWakeQueued(const WakeWaitFact& fact) {
  TaskClass task_class = classifier_.Classify(nullptr, fact.pid, fact.waking_comm,
                                              tracker_->trace()->strings, fact.waking_prio);
  if (!WakeLatencyWatches(task_class, fact.waking_prio)) return;
  Wait& wait = waits_[fact.wait_id];
  wait.pid = fact.pid;
  wait.waker_cpu = fact.waker_cpu;
  wait.queue_cpu = fact.queue_cpu;
  wait.waking_ns = fact.waking_ns;
  wait.in_window = window_.Contains(fact.waking_ns);
  wait.open_spans = 1;
  Cpu(fact.queue_cpu).spans.push_back({fact.wait_id, fact.waking_ns, kOpen});
}

void WakeLatency::CloseSpan(uint64_t wait_id, uint16_t cpu, TimestampNs ts) {
  for (Span& span : Cpu(cpu).spans) {
    if (span.wait_id == wait_id && span.to_ns == kOpen) span.to_ns = ts;
  }
}

void WakeLatency::OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                              TimestampNs ts_ns) {
  auto found = waits_.find(wait_id);
  if (found == waits_.end()) return;
  CloseSpan(wait_id, from_cpu, ts_ns);
  ++found->second.open_spans;
  found->second.queue_cpu = to_cpu;
  Cpu(to_cpu).spans.push_back({wait_id, ts_ns, kOpen});
  RetireSpans(from_cpu);
}

void WakeLatency::OnWakeRan(const WakeRunFact& run) {
  auto found = waits_.find(run.wait_id);
  if (found == waits_.end()) return;
  Wait& wait = found->second;
  if (!wait.in_window) {
    Discard(run.wait_id);
    return;
  }
  wait.switched_in = true;
  wait.switch_in_ns = run.run_ns;
  wait.switch_in_cpu = run.cpu;
  Row& row = RowOf(wait.pid, run.cpu);
  row.comm = run.comm;
  if (run.prio >= 0 && (row.prio < 0 || run.prio < row.prio)) row.prio = run.prio;
  row.latency.Add(LatencyOf(wait), wait.waking_ns);
  row.histogram.Add(LatencyOf(wait));
  CloseSpan(run.wait_id, run.queue_cpu, run.run_ns);
  RetireSpans(run.queue_cpu);
}

// A wait that is unknown: lost events where it was queued, or evidence it ran unseen in
// between, count as dropped; a task seen running without its switch-in is simply not paired.
void WakeLatency::OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) {
  (void)ts_ns;
  auto found = waits_.find(wait_id);
  if (found == waits_.end()) return;
  const Wait& wait = found->second;
  if (reason != WakeDropReason::kRanUnseen && wait.in_window) {
    ++RowOf(wait.pid, wait.queue_cpu).dropped;
  }
  Discard(wait_id);
}

void WakeLatency::Discard(uint64_t wait_id) {
  for (CpuState& cpu : cpus_) {
    std::erase_if(cpu.spans, [&](const Span& span) { return span.wait_id == wait_id; });
  }
  waits_.erase(wait_id);
}

// Drops the spans of `cpu` its segments have passed; a switched-in wait with none left is done.
void WakeLatency::RetireSpans(uint16_t cpu) {
  CpuState& state = Cpu(cpu);
  std::vector<uint64_t> done;
  std::erase_if(state.spans, [&](const Span& span) {
    if (span.to_ns > state.segments_until_ns) return false;
    Wait& wait = waits_[span.wait_id];
    if (--wait.open_spans == 0 && wait.switched_in) done.push_back(span.wait_id);
    return true;
  });
  for (uint64_t id : done) Finish(id);
}

// Keeps the wakeup among its row's longest, now that its blame is complete.
void WakeLatency::Finish(uint64_t wait_id) {
  auto found = waits_.find(wait_id);
  Wait wait = std::move(found->second);
  waits_.erase(found);
  Row& row = RowOf(wait.pid, wait.switch_in_cpu);
  int64_t latency = LatencyOf(wait);
  wait.blame.ChargeUnknownUpTo(latency);
  auto position = std::find_if(row.worst.begin(), row.worst.end(), [&](const Wait& kept) {
    int64_t kept_latency = LatencyOf(kept);
    return latency != kept_latency ? latency > kept_latency : wait.waking_ns < kept.waking_ns;
  });
  if (position == row.worst.end() && row.worst.size() >= kWorstWakeups) return;
  row.worst.insert(position, std::move(wait));
  if (row.worst.size() > kWorstWakeups) row.worst.pop_back();
}

void WakeLatency::OnSegment(const CpuSegment& segment) {
  Charge(segment.frame.cpu, segment.start_ns, segment.end_ns, &segment.frame);
}

void WakeLatency::OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
  Charge(cpu, start_ns, end_ns, nullptr);
}

void WakeLatency::Charge(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns,
                         const ContextFrame* frame) {
  CpuState& state = Cpu(cpu);
  state.segments_until_ns = std::max(state.segments_until_ns, end_ns);
  if (state.spans.empty()) return;
  for (const Span& span : state.spans) {
    waits_[span.wait_id].blame.Charge(std::max(start_ns, span.from_ns),
                                      std::min(end_ns, span.to_ns), frame);
  }
  RetireSpans(cpu);
}

std::vector<WakeLatencyRow> WakeLatency::Rows(const TraceContext& context) const {
  std::vector<WakeLatencyRow> rows;
  for (const auto& [key, row] : rows_) {
    if (row.latency.count() == 0 && row.dropped == 0) continue;
    WakeLatencyRow out;
    out.pid = key.first;
    out.cpu = key.second;
    out.comm = std::string(
        context.strings.Get(row.comm != 0 ? row.comm : context.tasks.CommOf(key.first)));
    out.prio = row.prio;
    if (out.prio < 0) {
      const TaskRecord* task = context.tasks.Find(key.first);
      if (task != nullptr) out.prio = task->last_prio;
    }
    out.task_class = ClassifyTask(&context.tasks, out.pid, out.comm, out.prio);
    out.policy = out.prio >= 0 && out.prio < 100 ? SchedPolicyClass::kRealtime
                                                 : SchedPolicyClass::kNormal;
    out.latency = row.latency.Stats();
    out.histogram = row.histogram;
    out.dropped = row.dropped;
    for (const Wait& wait : row.worst) {
      WakeLatencySample sample;
      sample.waking_ns = wait.waking_ns;
      sample.switch_in_ns = wait.switch_in_ns;
      sample.latency_ns = LatencyOf(wait);
      sample.waker_cpu = wait.waker_cpu;
      sample.blame = wait.blame.Items(context.strings);
      sample.unknown_ns = wait.blame.unknown_ns();
      out.worst.push_back(std::move(sample));
    }
    rows.push_back(std::move(out));
  }
  return rows;
}

}  // namespace napiscope::internal
