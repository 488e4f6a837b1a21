#include "analysis/scheduling_findings.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/held_evidence.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"

namespace napiscope::internal {
namespace {

// "cpu0 2.10 ms, cpu1 1.90 ms"
std::string RunTimes(const std::map<int, int64_t>& run_ns_by_cpu) {
  std::string text;
  for (const auto& [cpu, ns] : run_ns_by_cpu) {
    text += fmt::format("{}CPU{} {}", text.empty() ? "" : ", ", cpu, FormatDuration(ns));
  }
  return text;
}

template <typename Map>
int BusiestKey(const Map& counts, int fallback) {
  auto it = std::max_element(counts.begin(), counts.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
  return it == counts.end() ? fallback : it->first;
}

// The CPU the thread is woken on most often: where its IRQ or its waker lives.
int WakeupCpu(const ThreadActivityRow& row) {
  if (!row.hardirq_cpus.empty()) return BusiestKey(row.hardirq_cpus, 0);
  std::map<int, int64_t> by_source;
  for (const auto& [path, count] : row.activation_paths) by_source[path.first] += count;
  return BusiestKey(by_source, BusiestKey(row.run_ns_by_cpu, 0));
}

// Share of the thread's run time spent off the CPU it ran on most (0 when it never ran).
double TimeOffMainCpu(const ThreadActivityRow& row, int* main_cpu) {
  int64_t total = 0, most = 0;
  *main_cpu = -1;
  for (const auto& [cpu, ns] : row.run_ns_by_cpu) {
    total += ns;
    if (ns > most) most = ns, *main_cpu = cpu;
  }
  return total > 0 ? static_cast<double>(total - most) / total : 0;
}

bool IsFalseNohzKernel(const std::string& release) {
  bool rt = release.find("-rt") != std::string::npos;
  return rt && (release.rfind("6.1.", 0) == 0 || release.rfind("6.4.", 0) == 0);
}

}  // namespace

void PingPongFindings(const std::vector<ThreadActivityRow>& rows, const Thresholds& t,
                      std::vector<Finding>* findings) {
  for (const ThreadActivityRow& row : rows) {
    if (row.task_class == TaskClass::kKsoftirqd) continue;  // per-CPU by design: cannot bounce
    double share = row.CrossCpuShare();
    bool remote = row.cross_cpu_activations >= t.pingpong_min_cross_activations &&
                  t.pingpong_cross_share_warning > 0 && share >= t.pingpong_cross_share_warning;
    // Bouncing means changing CPU from run to run, not merely being woken from elsewhere: often
    // for its runs, often per second, or migrating often with its time split between CPUs
    // (docs/definitions.md, "Ping-pong").
    int main_cpu = -1;
    double off_main = TimeOffMainCpu(row, &main_cpu);
    int64_t moves = std::max(row.cpu_changes, row.migrations);
    bool moved_both_ways = row.run_ns_by_cpu.size() >= 2 && moves >= 2;
    bool split = t.pingpong_migrations_per_s_warning > 0 && t.pingpong_time_off_cpu_share > 0 &&
                 row.migrations_per_s >= t.pingpong_migrations_per_s_warning &&
                 off_main >= t.pingpong_time_off_cpu_share;
    bool bouncing = (row.cpu_changes >= t.pingpong_min_cross_activations &&
                     (row.cpu_changes * 10 >= row.runs ||
                      (t.pingpong_cpu_changes_per_s_warning > 0 &&
                       row.cpu_changes_per_s >= t.pingpong_cpu_changes_per_s_warning))) ||
                    (moves >= t.pingpong_min_cross_activations && split);
    if (!remote) continue;
    bool irq_thread = row.task_class == TaskClass::kIrqThread;
    int pin_cpu = WakeupCpu(row);
    Finding finding;
    std::string kind = irq_thread ? "irq-thread" : "napi-thread";
    finding.rule = kind + (bouncing ? "-pingpong" : "-placement");
    finding.severity = !bouncing ? Severity::kInfo
                       : t.pingpong_cross_share_error > 0 && share >= t.pingpong_cross_share_error
                           ? Severity::kError
                           : Severity::kWarning;
    std::string latency;
    const DurationStats& same = row.wake_to_run_same_cpu;
    const DurationStats& cross = row.wake_to_run_cross_cpu;
    if (cross.count > 0) {
      latency = fmt::format("; cross-CPU activations waited {} (median; {} at worst)",
                            FormatDuration(cross.p50_ns), FormatDuration(cross.max_ns));
    }
    if (same.count > 0 && cross.count > 0) {
      latency += fmt::format(" against {} same-CPU ({}{})", FormatDuration(same.p50_ns),
                             cross.p50_ns >= same.p50_ns ? "+" : "",
                             FormatDuration(cross.p50_ns - same.p50_ns));
    }
    std::string where = irq_thread
        ? fmt::format("IRQ {} ran on another CPU than its hard IRQ", row.irq)
        : std::string("ran on another CPU than the one that woke it");
    std::string pin = irq_thread
        ? fmt::format("pin the thread with its IRQ: echo {} > /proc/irq/{}/smp_affinity_list; "
                      "taskset -pc {} {}",
                      pin_cpu, row.irq, pin_cpu, row.pid)
        : fmt::format("pin the NAPI thread where it is woken: taskset -pc {} {} (with the device's "
                      "IRQ on CPU{} in /proc/irq/N/smp_affinity_list)",
                      pin_cpu, row.pid, pin_cpu);
    std::string verdict;
    if (bouncing) {
      verdict = fmt::format("To stop the ping-pong, {}.", pin);
    } else if (moved_both_ways) {
      verdict = fmt::format(
          "It moved between CPUs ({}, {:.0f} migrations/s, {:.0f}% of its run time off "
          "CPU{}), too seldom to call ping-pong, so this is mostly placement; if the wakeups come "
          "from an IRQ, {}.",
          Counted(moves, "time"), row.migrations_per_s, off_main * 100, main_cpu, pin);
    } else {
      verdict = fmt::format("It stays on its CPU, so this is placement, not ping-pong; if the "
                            "wakeups come from an IRQ, {}.",
                            pin);
    }
    finding.summary = fmt::format(
        "{} {} in {} of {} activations ({:.0f}%); it ran on {}, changed CPU {} in {} "
        "({:.0f}/s), {}{}. {}",
        DescribeTask(row.pid, row.comm, row.prio), where, row.cross_cpu_activations,
        row.activations, share * 100, RunTimes(row.run_ns_by_cpu), Counted(row.cpu_changes, "time"),
        Counted(row.runs, "run"), row.cpu_changes_per_s, Counted(row.migrations, "migration"),
        latency, verdict);
    finding.pid = row.pid;
    finding.irq = {row.irq, false};  // an IRQ thread's IRQ is a device's
    finding.other_cpus = {pin_cpu};  // where to pin it, then every CPU it ran on
    for (const auto& [cpu, ns] : row.run_ns_by_cpu) {
      if (cpu != pin_cpu) finding.other_cpus.push_back(cpu);
    }
    if (cross.count > 0) {  // where to look: its slowest cross-CPU activation, wakeup to run
      finding.start_ns = cross.max_at_ns;
      finding.end_ns = cross.max_at_ns + cross.max_ns;
    }
    finding.evidence = {{"pid", row.pid},
                        {"comm", row.comm},
                        {"irq", row.irq},
                        {"activations", row.activations},
                        {"cross_cpu_activations", row.cross_cpu_activations},
                        {"cross_cpu_share", share},
                        {"runs", row.runs},
                        {"cpu_changes", row.cpu_changes},
                        {"cpu_changes_per_s", row.cpu_changes_per_s},
                        {"migrations", row.migrations},
                        {"suggested_cpu", pin_cpu}};
    // A median only of waits that were measured: activations whose switch-in was not recorded
    // have none, and a median of none is unknown, not 0 ns.
    auto median = [&](const char* key, const DurationStats& stats, int64_t activations) {
      if (stats.count > 0) {
        finding.evidence[key] = stats.p50_ns;
      } else if (activations > 0) {
        finding.evidence[key] = fmt::format("unknown: none of its {} had its switch-in recorded",
                                            Counted(activations, "activation"));
      }
    };
    median("wake_to_run_same_cpu_p50_ns", same, row.activations - row.cross_cpu_activations);
    median("wake_to_run_cross_cpu_p50_ns", cross, row.cross_cpu_activations);
    findings->push_back(std::move(finding));
  }
}

void KsoftirqdBlockedFindings(const std::vector<KsoftirqdBlockedRow>& rows, const Thresholds& t,
                              std::vector<Finding>* findings) {
  // One finding per CPU, about its longest blocked interval; the rows list all of them.
  std::map<int, std::pair<const KsoftirqdBlockedRow*, int64_t>> worst;  // cpu -> (row, count)
  for (const KsoftirqdBlockedRow& row : rows) {
    if (!row.end_known || t.ksoftirqd_blocked_warning_ns <= 0 ||
        row.duration_ns < t.ksoftirqd_blocked_warning_ns) {
      continue;
    }
    auto& [longest, count] = worst[row.cpu];
    ++count;
    if (longest == nullptr || row.duration_ns > longest->duration_ns) longest = &row;
  }
  for (const auto& [cpu, entry] : worst) {
    const KsoftirqdBlockedRow& row = *entry.first;
    std::string chain;
    for (const ChainLink& link : row.chain) {
      chain += fmt::format("{}{} {}", chain.empty() ? ": waiting on " : "; ",
                           DescribeTask(link.pid, link.comm, link.prio), link.relation);
    }
    std::string held;
    for (size_t h = 0; h < row.cpu_held_by.size() && h < 2; ++h) {
      const TaskTime& time = row.cpu_held_by[h];
      held += fmt::format("{}{} {}", h == 0 ? fmt::format("; CPU{} meanwhile ran ", cpu) : ", ",
                          DescribeTask(time.pid, time.comm, time.prio), FormatDuration(time.time_ns));
    }
    std::string waker = row.waker_pid >= 0
                            ? fmt::format("; woken by {} on CPU{} ({})",
                                          DescribeTask(row.waker_pid, row.waker_comm, -1),
                                          row.waker_cpu, row.waker_context)
                            : std::string();
    Finding finding;
    finding.rule = "ksoftirqd-blocked";
    finding.severity = t.ksoftirqd_blocked_error_ns > 0 &&
                               row.duration_ns >= t.ksoftirqd_blocked_error_ns
                           ? Severity::kError
                           : Severity::kWarning;
    finding.cpu = cpu;
    finding.start_ns = row.start_ns;
    finding.end_ns = row.end_ns;
    finding.summary = fmt::format(
        "{} was switched out in {} for {} with {} pending{}{}{}{}.", row.comm, row.state,
        FormatDuration(row.duration_ns), FormatSoftirqMask(row.pending_mask_start), chain, held,
        waker,
        entry.second > 1 ? fmt::format(" ({} such intervals on CPU{})", entry.second, cpu) : "");
    nlohmann::json named = nlohmann::json::array();
    for (size_t h = 0; h < row.cpu_held_by.size() && h < 2; ++h) {
      // The time it was the CPU's task, its IRQs and softirqs included ("task_context").
      nlohmann::json holder = HeldByTask(cpu, row.start_ns, row.end_ns, row.cpu_held_by[h].pid,
                                         row.cpu_held_by[h].time_ns);
      holder["kind"] = "task_context";
      named.push_back(holder);
    }
    nlohmann::json links = nlohmann::json::array();
    for (const ChainLink& link : row.chain) {
      links.push_back({{"pid", link.pid}, {"comm", link.comm}, {"relation", link.relation}});
    }
    finding.pid = row.pid;
    finding.other_pids = {row.waker_pid};
    finding.evidence = {{"pid", row.pid},
                        {"duration_ns", row.duration_ns},
                        {"pending_mask_start", row.pending_mask_start},
                        {"pending_mask_end", row.pending_mask_end},
                        {"waker_pid", row.waker_pid},
                        {"chain", links},
                        {"intervals", entry.second},
                        {"holders", named}};
    findings->push_back(std::move(finding));
  }
}

void IdlePendingFindings(const std::vector<IdleWithPendingRow>& rows,
                         const std::string& kernel_release, const Thresholds& t,
                         std::vector<Finding>* findings) {
  struct PerCpu {
    int64_t count = 0;
    const IdleWithPendingRow* worst = nullptr;
    int64_t worst_wait_ns = -1;  // -1: never processed in the trace
    uint32_t worst_vec = 0;
  };
  std::map<int, PerCpu> cpus;
  for (const IdleWithPendingRow& row : rows) {
    PerCpu& cpu = cpus[row.cpu];
    ++cpu.count;
    for (const auto& [vec, after] : row.processed_after_ns) {
      int64_t wait = after < 0 ? INT64_MAX : after;
      if (cpu.worst == nullptr || wait > (cpu.worst_wait_ns < 0 ? INT64_MAX : cpu.worst_wait_ns)) {
        cpu.worst = &row;
        cpu.worst_wait_ns = after;
        cpu.worst_vec = vec;
      }
    }
  }
  for (const auto& [cpu, stats] : cpus) {
    const IdleWithPendingRow& row = *stats.worst;
    bool long_wait = stats.worst_wait_ns < 0 || (t.idle_pending_warning_ns > 0 &&
                                                 stats.worst_wait_ns >= t.idle_pending_warning_ns);
    std::string later = stats.worst_wait_ns < 0
                            ? fmt::format("{} was not processed before the trace (or a gap) ended",
                                          VectorLabel(stats.worst_vec))
                            : fmt::format("{} was processed {} later", VectorLabel(stats.worst_vec),
                                          FormatDuration(stats.worst_wait_ns));
    Finding finding;
    finding.rule = "softirq-pending-at-idle";
    finding.severity = long_wait ? Severity::kWarning : Severity::kInfo;
    finding.cpu = cpu;
    finding.vec = static_cast<int32_t>(stats.worst_vec);
    finding.start_ns = row.ts_ns;
    finding.end_ns = row.ts_ns + std::max<int64_t>(stats.worst_wait_ns, 0);
    finding.summary = fmt::format(
        "CPU{} went idle {} time{} with softirqs pending (worst at {}: {}; {}). The kernel reports "
        "this as \"NOHZ tick-stop error: local softirq work is pending, handler #{:x}!!!\" "
        "(before 2020: \"NOHZ: local_softirq_pending {:x}\").",
        cpu, stats.count, stats.count == 1 ? "" : "s", FormatTimestamp(row.ts_ns),
        FormatSoftirqMask(row.pending_mask), later, row.pending_mask, row.pending_mask);
    if (IsFalseNohzKernel(kernel_release)) {
      finding.summary += fmt::format(
          " Note: {} is a 6.1-rt/6.4-rt stable kernel, which printed this warning falsely at "
          "boot (fixed upstream by \"tick/rcu: Fix false positive 'softirq work is pending' "
          "messages\").",
          kernel_release);
    }
    finding.evidence = {{"occurrences", stats.count},
                        {"pending_mask", row.pending_mask},
                        {"worst_vec", stats.worst_vec},
                        {"worst_processed_after_ns", stats.worst_wait_ns}};
    findings->push_back(std::move(finding));
  }
}

void OrderingStallFindings(const std::vector<SoftirqOrderingStallRow>& rows, const Thresholds& t,
                           std::vector<Finding>* findings) {
  // Only waits the lower vector itself held past the threshold: in the others something else
  // held the CPU (an RT task, idle, ksoftirqd's wait), and their findings name it.
  std::map<std::pair<int, uint32_t>, std::pair<const SoftirqOrderingStallRow*, int64_t>> worst;
  for (const SoftirqOrderingStallRow& row : rows) {
    if (t.ordering_stall_ns <= 0 || row.blocking_held_ns < t.ordering_stall_ns) continue;
    auto& [longest, count] = worst[{row.cpu, row.vec}];
    ++count;
    if (longest == nullptr || row.blocking_held_ns > longest->blocking_held_ns) longest = &row;
  }
  for (const auto& [key, entry] : worst) {
    const SoftirqOrderingStallRow& row = *entry.first;
    Finding finding;
    finding.rule = "softirq-ordering-stall";
    finding.severity = t.softirq_latency_max_error_ns > 0 &&
                               row.blocking_held_ns > t.softirq_latency_max_error_ns
                           ? Severity::kError
                           : Severity::kWarning;
    finding.cpu = row.cpu;
    finding.start_ns = row.raise_ns;
    finding.end_ns = row.entry_ns;
    finding.summary = fmt::format(
        "{} on CPU{} waited {} behind {} in progress in {} ({}{}), which held the CPU {} of "
        "that wait ({:.0f}%): softirqs run in vector order, so a lower-numbered one that does "
        "not finish holds back the others{}.",
        VectorLabel(row.vec), row.cpu, FormatDuration(row.wait_ns), VectorLabel(row.blocking_vec),
        DescribeTask(row.blocking_pid, row.blocking_comm, -1), row.blocking_site,
        row.blocking_preempted ? ", its task switched out inside it" : "",
        FormatDuration(row.blocking_held_ns),
        row.wait_ns > 0 ? 100.0 * static_cast<double>(row.blocking_held_ns) /
                              static_cast<double>(row.wait_ns)
                        : 0.0,
        entry.second > 1 ? fmt::format(" ({} such waits)", entry.second) : "");
    finding.vec = static_cast<int32_t>(row.vec);
    finding.other_pids = {row.blocking_pid};
    finding.evidence = {
        {"vec", row.vec},
        {"wait_ns", row.wait_ns},
        {"blocking_vec", row.blocking_vec},
        {"blocking_pid", row.blocking_pid},
        {"blocking_preempted", row.blocking_preempted},
        {"blocking_held_ns", row.blocking_held_ns},
        {"occurrences", entry.second},
        {"holders", nlohmann::json::array({HeldBySoftirq(row.cpu, row.raise_ns, row.entry_ns,
                                                         row.blocking_vec,
                                                         row.blocking_held_ns)})}};
    findings->push_back(std::move(finding));
  }
}

}  // namespace napiscope::internal
