#include "report/napi_rt_render.h"

#include <fmt/format.h>

#include "napiscope/format.h"
#include "report/describe.h"
#include "report/scheduling_render.h"

namespace napiscope::internal {
namespace {

using nlohmann::json;

// Worst wakeups and holders shown per thread in text; JSON has them all.
constexpr size_t kTextWorstWakeups = 3;
constexpr size_t kTextHolders = 3;

json CountStatsJson(const CountStats& stats) {
  return {{"count", stats.count}, {"min", stats.min}, {"p50", stats.p50}, {"p90", stats.p90},
          {"p99", stats.p99},     {"max", stats.max}, {"mean", stats.mean}};
}

json NapiJson(const NapiRow& row) {
  json poll_time = json::object();
  AddStatsJson(row.poll_time, poll_time);
  return {{"napi", fmt::format("{:#x}", row.napi)},
          {"dev", row.dev},
          {"cpu", row.cpu},
          {"context", std::string(NapiContextName(row.context))},
          {"budget", row.budget},
          {"polls", row.polls},
          {"exhausted", row.exhausted},
          {"exhausted_share", row.ExhaustedShare()},
          {"work", row.work},
          {"max_consecutive_exhausted", row.max_consecutive_exhausted},
          {"longest_chain_start_ns", row.longest_chain_start_ns},
          {"longest_chain_end_ns", row.longest_chain_end_ns},
          {"dropped_chains", row.dropped_chains},
          {"work_per_poll", CountStatsJson(row.work_per_poll)},
          {"poll_time", poll_time},
          {"netif_receive_skb", row.netif_receive_skb < 0 ? json(nullptr)
                                                          : json(row.netif_receive_skb)}};
}

json WakeJson(const WakeLatencyRow& row) {
  json out = {{"pid", row.pid},
              {"comm", row.comm},
              {"class", std::string(TaskClassName(row.task_class))},
              {"policy", std::string(SchedPolicyClassName(row.policy))},
              {"prio", row.prio},
              {"rt_priority", RtPriorityOf(row.prio)},
              {"cpu", row.cpu}};
  AddStatsJson(row.latency, out);
  out["dropped"] = row.dropped;
  json worst = json::array();
  for (const WakeLatencySample& sample : row.worst) {
    json blame = json::array();
    for (const BlameItem& item : sample.blame) {
      json entry = BlameItemJson(item);
      entry["role"] = std::string(WakeBlameRole(item, row.prio));
      entry["share"] = sample.latency_ns > 0 ? static_cast<double>(item.time_ns) /
                                                   static_cast<double>(sample.latency_ns)
                                             : 0.0;
      blame.push_back(std::move(entry));
    }
    worst.push_back({{"ts_ns", sample.waking_ns},
                     {"switch_in_ns", sample.switch_in_ns},
                     {"latency_ns", sample.latency_ns},
                     {"waker_cpu", sample.waker_cpu},
                     {"unknown_ns", sample.unknown_ns},
                     {"blame", blame}});
  }
  out["worst"] = worst;
  return out;
}

void NapiLines(const Report& report, std::vector<std::string>& lines) {
  lines.push_back("");
  const AnalysisAvailability* availability = report.Availability("napi");
  if (availability != nullptr && !availability->available) {
    lines.push_back(fmt::format("NAPI polls: not available, the trace has no {}",
                                fmt::join(availability->missing_required, ", ")));
    return;
  }
  if (report.napi.empty()) {
    lines.push_back("NAPI polls: none in the trace");
    return;
  }
  lines.push_back("NAPI polls (exhausted: work = budget, polled again; chain: exhausted in a row):");
  lines.push_back(fmt::format("  {:<14} {:<18} {:>3} {:<15} {:>8} {:>9} {:>6} {:>6} {:>9} {:>9} "
                              "{:>9}  {}",
                              "dev", "napi", "cpu", "context", "polls", "exhausted", "share",
                              "chain", "work/poll", "poll p50", "poll max", "netif_receive_skb"));
  for (const NapiRow& row : report.napi) {
    lines.push_back(fmt::format(
        "  {:<14} {:<18} {:>3} {:<15} {:>8} {:>9} {:>5.0f}% {:>6} {:>9.1f} {:>9} {:>9}  {}",
        row.dev, fmt::format("{:#x}", row.napi), row.cpu, NapiContextName(row.context),
        row.polls, row.exhausted, row.ExhaustedShare() * 100, row.max_consecutive_exhausted,
        row.work_per_poll.mean, FormatDuration(row.poll_time.p50_ns),
        FormatDuration(row.poll_time.max_ns),
        row.netif_receive_skb < 0 ? std::string("not recorded")
                                  : std::to_string(row.netif_receive_skb)));
  }
}

void WakeLines(const Report& report, std::vector<std::string>& lines) {
  lines.push_back("");
  const AnalysisAvailability* availability = report.Availability("rt_wake_latency");
  if (availability != nullptr && !availability->available) {
    lines.push_back(fmt::format("RT wake latency: not available, the trace has no {}",
                                fmt::join(availability->missing_required, ", ")));
    return;
  }
  if (report.rt_wake_latency.empty()) {
    lines.push_back("RT wake latency: no RT or softirq-serving thread was woken");
    return;
  }
  lines.push_back("wake latency, sched_waking -> switch-in (RT threads, and the threads that "
                  "serve softirqs):");
  lines.push_back(fmt::format("  {:<22} {:>7} {:<9} {:>3} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
                              "thread", "pid", "prio", "cpu", "count", "min", "p50", "p99", "max",
                              "dropped"));
  for (const WakeLatencyRow& row : report.rt_wake_latency) {
    std::string prio = FormatPriority(row.prio);
    lines.push_back(fmt::format("  {:<22} {:>7} {:<9} {:>3} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
                                row.comm, row.pid, prio.empty() ? "normal" : prio, row.cpu,
                                row.latency.count, FormatDuration(row.latency.min_ns),
                                FormatDuration(row.latency.p50_ns),
                                FormatDuration(row.latency.p99_ns),
                                FormatDuration(row.latency.max_ns), row.dropped));
  }
  lines.push_back("");
  lines.push_back("longest wakeups of RT threads and what held the CPU:");
  for (const WakeLatencyRow& row : report.rt_wake_latency) {
    if (row.policy != SchedPolicyClass::kRealtime) continue;
    for (size_t i = 0; i < row.worst.size() && i < kTextWorstWakeups; ++i) {
      const WakeLatencySample& sample = row.worst[i];
      std::vector<std::string> holders;
      for (size_t h = 0; h < sample.blame.size() && h < kTextHolders; ++h) {
        const BlameItem& item = sample.blame[h];
        holders.push_back(fmt::format("{} {} {}", WakeBlameRole(item, row.prio),
                                      DescribeHolder(item), FormatDuration(item.time_ns)));
      }
      if (sample.blame.size() > kTextHolders) {
        holders.push_back(fmt::format("{} more", sample.blame.size() - kTextHolders));
      }
      if (sample.unknown_ns > 0) holders.push_back(FormatDuration(sample.unknown_ns) + " unknown");
      lines.push_back(fmt::format("  {} cpu{} {:>9} woken {} from cpu{}: {}", row.comm, row.cpu,
                                  FormatDuration(sample.latency_ns),
                                  FormatTimestamp(sample.waking_ns), sample.waker_cpu,
                                  fmt::join(holders, ", ")));
    }
  }
}

}  // namespace

void AddNapiRtJson(const Report& report, json& out) {
  json napi = json::array();
  for (const NapiRow& row : report.napi) napi.push_back(NapiJson(row));
  json wake = json::array();
  for (const WakeLatencyRow& row : report.rt_wake_latency) wake.push_back(WakeJson(row));
  out["napi"] = napi;
  out["rt_wake_latency"] = wake;
  const KernelModel& kernel = report.kernel;
  out["kernel"] = {{"release", report.trace.meta.kernel_release},
                   {"preempt_rt", kernel.preempt_rt},
                   {"evidence", kernel.evidence},
                   {"irq_threads", kernel.irq_threads},
                   {"softirqs_at_irq_exit", kernel.softirqs_at_irq_exit},
                   {"softirqs_in_threads", kernel.softirqs_in_threads},
                   {"softirq_threads", kernel.softirq_threads},
                   {"softirqs_in_softirq_threads", kernel.softirqs_in_softirq_threads},
                   {"evidence_used", kernel.evidence_used}};
}

std::vector<std::string> NapiRtText(const Report& report) {
  std::vector<std::string> lines;
  NapiLines(report, lines);
  WakeLines(report, lines);
  return lines;
}

std::string KernelModelLine(const KernelModel& kernel) {
  return fmt::format("PREEMPT_RT: {} ({})", kernel.preempt_rt, kernel.evidence);
}

}  // namespace napiscope::internal
