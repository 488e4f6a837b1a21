#include "analysis/softirq_thread_starved.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/held_evidence.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"

namespace napiscope::internal {

SoftirqThreadStarved::CpuState& SoftirqThreadStarved::Cpu(uint16_t cpu) {
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

void SoftirqThreadStarved::OnSegment(const CpuSegment& segment) {
  TimestampNs start = std::max(segment.start_ns, window_.from_ns);
  TimestampNs end = std::min(segment.end_ns, window_.to_ns);
  if (end <= start) return;
  const ContextFrame& frame = segment.frame;
  CpuState& cpu = Cpu(frame.cpu);
  if (cpu.first_ns < 0) cpu.first_ns = start;
  cpu.last_ns = std::max(cpu.last_ns, end);
  // Its own softirq runs count as runs of ksoftirqd too (their frames carry its class).
  if (frame.task_class == TaskClass::kKsoftirqd) cpu.ksoftirqd_ran = true;
  bool rt = frame.kind == ContextKind::kTask && frame.pid > 0 && frame.prio >= 0 &&
            frame.prio < 100 && !ServesSoftirqs(frame.task_class);
  if (!rt) return;
  Rt& held = cpu.rt[frame.pid];
  held.time_ns += end - start;
  if (held.prio < 0 || frame.prio < held.prio) held.prio = frame.prio;
}

void SoftirqThreadStarved::OnSoftirqRaise(const SoftirqRaiseFact& raise) {
  if (window_.Contains(raise.raise_ns)) Cpu(raise.cpu).pending.emplace(raise.vec, raise.raise_ns);
}

void SoftirqThreadStarved::OnSoftirqWait(const SoftirqWaitFact& wait) {
  CpuState& cpu = Cpu(wait.cpu);
  auto raised = cpu.pending.find(wait.vec);
  if (raised == cpu.pending.end()) return;
  TimestampNs raise_ns = raised->second;
  cpu.pending.erase(raised);
  if (!wait.paired() || wait.entry_ns - raise_ns <= cpu.longest_wait_ns) return;
  cpu.longest_wait_ns = wait.entry_ns - raise_ns;
  cpu.longest_vec = wait.vec;
  cpu.longest_raise_ns = raise_ns;
}

void SoftirqThreadStarved::OnSoftirqWaitDropped(const SoftirqRaiseFact& raise,
                                                TimestampNs gap_ns) {
  (void)gap_ns;
  Cpu(raise.cpu).pending.erase(raise.vec);
}

void SoftirqThreadStarved::OnWakeQueued(const WakeWaitFact& wait) {
  if (wait.waking_ns < window_.to_ns) woken_.insert(wait.pid);
}

std::vector<StarvedSoftirqThreadRow> SoftirqThreadStarved::Rows(const TraceContext& context,
                                                                const Thresholds& t) const {
  std::vector<StarvedSoftirqThreadRow> rows;
  if (t.softirq_starvation_warning_ns <= 0 || t.softirq_thread_starved_rt_share <= 0) return rows;
  for (size_t index = 0; index < cpus_.size(); ++index) {
    const CpuState& cpu = cpus_[index];
    int64_t span = cpu.last_ns - cpu.first_ns;
    if (cpu.ksoftirqd_ran || cpu.first_ns < 0 || span <= 0) continue;
    StarvedSoftirqThreadRow row;
    row.cpu = static_cast<int>(index);
    row.from_ns = cpu.first_ns;
    row.to_ns = cpu.last_ns;
    row.longest_vec = cpu.longest_vec;
    row.longest_raise_ns = cpu.longest_raise_ns;
    row.longest_wait_ns = cpu.longest_wait_ns;
    for (const auto& [vec, raise_ns] : cpu.pending) {
      row.pending_at_end |= 1u << vec;
      if (cpu.last_ns - raise_ns > row.longest_wait_ns) {
        row.longest_wait_ns = cpu.last_ns - raise_ns;
        row.longest_vec = vec;
        row.longest_raise_ns = raise_ns;
        row.longest_never_ran = true;
      }
    }
    for (const auto& [pid, held] : cpu.rt) {
      row.rt_ns += held.time_ns;
      row.rt_holders.push_back(
          {pid, std::string(context.strings.Get(context.tasks.CommOf(pid))), held.prio,
           held.time_ns});
    }
    row.rt_share = static_cast<double>(row.rt_ns) / static_cast<double>(span);
    if (row.longest_wait_ns < t.softirq_starvation_warning_ns ||
        row.rt_share < t.softirq_thread_starved_rt_share) {
      continue;
    }
    std::stable_sort(row.rt_holders.begin(), row.rt_holders.end(),
                     [](const TaskTime& a, const TaskTime& b) { return a.time_ns > b.time_ns; });
    // The thread by name: it may never appear in an event, only in the saved comms.
    row.comm = fmt::format("ksoftirqd/{}", row.cpu);
    for (const auto& [pid, record] : context.tasks.tasks()) {
      if (context.strings.Get(context.tasks.CommOf(pid)) == row.comm &&
          (row.pid < 0 || pid < row.pid)) {
        row.pid = pid;
      }
    }
    if (woken_.count(row.pid) > 0) continue;
    rows.push_back(std::move(row));
  }
  return rows;
}

void SoftirqThreadStarvedFindings(const std::vector<StarvedSoftirqThreadRow>& rows,
                                  std::vector<Finding>* findings) {
  constexpr size_t kNamed = 3;
  for (const StarvedSoftirqThreadRow& row : rows) {
    std::string holders;
    nlohmann::json named = nlohmann::json::array();
    int top_rt = 0;
    for (size_t i = 0; i < row.rt_holders.size(); ++i) {
      const TaskTime& holder = row.rt_holders[i];
      top_rt = std::max(top_rt, RtPriorityOf(holder.prio));
      if (i >= kNamed) continue;
      holders += fmt::format("{}{} {}", i == 0 ? "" : ", ",
                             DescribeTask(holder.pid, holder.comm, holder.prio),
                             FormatDuration(holder.time_ns));
      named.push_back(HeldByTask(row.cpu, row.from_ns, row.to_ns, holder.pid, holder.time_ns));
    }
    std::string thread = row.pid >= 0 ? DescribeTask(row.pid, row.comm, -1) : row.comm;
    std::string waited = row.longest_never_ran
                             ? fmt::format("{} raised at {} had not run {} later, when the "
                                           "recording ended",
                                           VectorLabel(row.longest_vec),
                                           FormatTimestamp(row.longest_raise_ns),
                                           FormatDuration(row.longest_wait_ns))
                             : fmt::format("{} raised at {} waited {}", VectorLabel(row.longest_vec),
                                           FormatTimestamp(row.longest_raise_ns),
                                           FormatDuration(row.longest_wait_ns));
    std::string pid_text = row.pid >= 0 ? std::to_string(row.pid) : "$(pgrep -x " + row.comm + ")";
    std::string command = fmt::format("chrt -f -p {} {}", std::min(top_rt + 1, 99), pid_text);
    Finding finding;
    finding.rule = "softirq-thread-starved";
    finding.severity = Severity::kWarning;
    finding.cpu = row.cpu;
    finding.pid = row.pid;
    finding.start_ns = row.from_ns;
    finding.end_ns = row.to_ns;
    finding.vec = static_cast<int32_t>(row.longest_vec);
    for (size_t i = 0; i < row.rt_holders.size() && i < kNamed; ++i) {
      finding.other_pids.push_back(row.rt_holders[i].pid);
    }
    finding.summary = fmt::format(
        "{} did not run once in the {} recorded on CPU{} while softirq work waited for it ({}); "
        "RT tasks held CPU{} {:.0f}% of that time: {}. It was runnable before the recording "
        "began, so no wakeup shows the wait. Put it above them ({}) or keep the RT tasks off "
        "CPU{} (taskset).",
        thread, FormatDuration(row.to_ns - row.from_ns), row.cpu, waited, row.cpu,
        row.rt_share * 100, holders, command, row.cpu);
    finding.evidence = {{"pid", row.pid},
                        {"comm", row.comm},
                        {"span_ns", row.to_ns - row.from_ns},
                        {"rt_ns", row.rt_ns},
                        {"rt_share", row.rt_share},
                        {"longest_vec", row.longest_vec},
                        {"longest_raise_ns", row.longest_raise_ns},
                        {"longest_wait_ns", row.longest_wait_ns},
                        {"longest_never_ran", row.longest_never_ran},
                        {"pending_at_end", row.pending_at_end},
                        {"commands", {command}},
                        {"holders", named}};
    findings->push_back(std::move(finding));
  }
}

}  // namespace napiscope::internal
