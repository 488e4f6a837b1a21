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

WakeLatency::CpuState& WakeLatency::Cpu(uint16_t cpu) {
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

bool WakeLatency::IsRunning(int32_t pid) const {
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
    if (tracker_->CurrentPid(static_cast<uint16_t>(cpu)) == pid) return true;
  }
  return false;
}

void WakeLatency::OnEvent(const Event& event) {
  Cpu(event.cpu);
  switch (event.kind) {
    case EventKind::kSchedWaking:
      Waking(event);
      break;
    case EventKind::kSchedMigrateTask:
      Migrate(event);
      break;
    case EventKind::kSchedSwitch:
      Switch(event);
      break;
    case EventKind::kMissedEvents:
      Drop(event.cpu);
      break;
    default:
      break;
  }
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
  queued_.clear();
}

void WakeLatency::Waking(const Event& event) {
  const WakeFields& wake = event.wake;
  if (wake.pid <= 0 || queued_.contains(wake.pid)) return;  // the first waking counts
  bool realtime = wake.prio >= 0 && wake.prio < 100;
  if (!realtime) {
    std::string_view comm = tracker_->trace()->strings.Get(wake.comm);
    if (!ServesSoftirqs(ClassifyTask(wake.pid, comm, wake.prio))) return;
  }
  if (IsRunning(wake.pid)) return;  // waking the running task switches nothing in
  uint16_t target = wake.target_cpu >= 0 ? static_cast<uint16_t>(wake.target_cpu) : event.cpu;
  uint64_t id = next_wait_id_++;
  Wait& wait = waits_[id];
  wait.pid = wake.pid;
  wait.waker_cpu = event.cpu;
  wait.waking_ns = event.ts_ns;
  wait.in_window = window_.Contains(event.ts_ns);
  wait.open_spans = 1;
  Cpu(target).spans.push_back({id, event.ts_ns, kOpen});
  queued_[wake.pid] = {id, target};
}

void WakeLatency::CloseSpan(uint64_t wait_id, uint16_t cpu, TimestampNs ts) {
  for (Span& span : Cpu(cpu).spans) {
    if (span.wait_id == wait_id && span.to_ns == kOpen) span.to_ns = ts;
  }
}

void WakeLatency::Migrate(const Event& event) {
  const MigrateFields& migrate = event.migrate;
  auto queued = queued_.find(migrate.pid);
  if (migrate.dest_cpu < 0 || queued == queued_.end()) return;
  auto& [id, cpu] = queued->second;
  uint16_t dest = static_cast<uint16_t>(migrate.dest_cpu);
  if (dest == cpu) return;
  CloseSpan(id, cpu, event.ts_ns);
  ++waits_[id].open_spans;
  Cpu(dest).spans.push_back({id, event.ts_ns, kOpen});
  uint16_t source = cpu;
  cpu = dest;
  RetireSpans(source);
}

void WakeLatency::Switch(const Event& event) {
  const SchedSwitchFields& sw = event.sched_switch;
  // A queued task seen running without its switch-in (missing events) is not paired.
  auto stale = queued_.find(sw.prev_pid);
  if (stale != queued_.end()) {
    uint64_t id = stale->second.first;
    queued_.erase(stale);
    Discard(id);
  }
  auto queued = queued_.find(sw.next_pid);
  if (queued == queued_.end()) return;
  auto [id, queue_cpu] = queued->second;
  queued_.erase(queued);
  Wait& wait = waits_[id];
  if (!wait.in_window) {
    Discard(id);
    return;
  }
  wait.switched_in = true;
  wait.switch_in_ns = event.ts_ns;
  wait.switch_in_cpu = event.cpu;
  Row& row = RowOf(wait.pid, event.cpu);
  row.comm = sw.next_comm;
  if (sw.next_prio >= 0 && (row.prio < 0 || sw.next_prio < row.prio)) row.prio = sw.next_prio;
  row.latency.Add(LatencyOf(wait), wait.waking_ns);
  CloseSpan(id, queue_cpu, event.ts_ns);
  RetireSpans(queue_cpu);
}

// Lost events on a CPU: a thread queued there may have been switched in unseen.
void WakeLatency::Drop(uint16_t cpu) {
  std::vector<uint64_t> dropped;
  for (auto it = queued_.begin(); it != queued_.end();) {
    auto [id, queue_cpu] = it->second;
    if (queue_cpu != cpu) {
      ++it;
      continue;
    }
    if (waits_[id].in_window) ++RowOf(it->first, cpu).dropped;
    dropped.push_back(id);
    queued_.erase(it++);
  }
  for (uint64_t id : dropped) Discard(id);
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
    out.task_class = ClassifyTask(out.pid, out.comm, out.prio);
    out.policy = out.prio >= 0 && out.prio < 100 ? SchedPolicyClass::kRealtime
                                                 : SchedPolicyClass::kNormal;
    out.latency = row.latency.Stats();
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
