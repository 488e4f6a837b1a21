#include "render/napi_rt_render.h"

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/report_text_parts.h"
#include "render/scheduling_render.h"
#include "render/text_layout.h"

namespace napiscope::internal {
namespace {

using nlohmann::json;

// Holders shown per wakeup in text; JSON has them all.
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
                     {"silent_ns", sample.silent_ns},
                     {"blame", blame}});
  }
  out["worst"] = worst;
  return out;
}

void NapiLines(const Report& report, size_t width, std::vector<std::string>& lines) {
  // An analysis that could not run has no table; "lost and missing events" says why.
  if (!NotAvailableReason(report, "napi").empty()) return;
  lines.push_back("");
  if (report.napi.empty()) {
    lines.push_back("NAPI polls: none in the trace");
    return;
  }
  std::string caption =
      "NAPI polls (exhausted: work = budget, polled again; share: of the polls; chain: most "
      "exhausted in a row; skbs: netif_receive_skb events";
  if (HasBacklogPolls(report)) {
    caption += fmt::format("; {}: the backlog of netif_rx, RPS and loopback", kBacklogNapiDevice);
  }
  for (std::string& line : Wrap(caption + "):", width, "")) {
    lines.push_back(std::move(line));
  }
  TextTable table({"<dev", "<napi", "cpu", "<context", "polls", "exhausted", "share", "chain",
                   "work/poll", "poll p50", "poll max", "skbs"},
                  3);
  for (const NapiRow& row : report.napi) {
    // A poll whose start is unknown (the first after a gap) has no poll time.
    auto timed = [&row](int64_t ns) {
      return row.poll_time.count > 0 ? FormatDuration(ns) : std::string("-");
    };
    table.Add({row.dev, fmt::format("{:#x}", row.napi), fmt::format("{}", row.cpu),
               std::string(NapiContextName(row.context)), fmt::format("{}", row.polls),
               fmt::format("{}", row.exhausted), fmt::format("{:.0f}%", row.ExhaustedShare() * 100),
               fmt::format("{}", row.max_consecutive_exhausted),
               fmt::format("{:.1f}", row.work_per_poll.mean), timed(row.poll_time.p50_ns),
               timed(row.poll_time.max_ns),
               row.netif_receive_skb < 0 ? std::string("not recorded")
                                         : std::to_string(row.netif_receive_skb)});
  }
  table.AppendTo(width, lines);
}

void WakeLines(const Report& report, const TextReportOptions& options,
               std::vector<std::string>& lines) {
  if (!NotAvailableReason(report, "rt_wake_latency").empty()) return;
  lines.push_back("");
  if (report.rt_wake_latency.empty()) {
    lines.push_back("wake latency: no RT or softirq-serving thread was woken");
    return;
  }
  for (std::string& line : Wrap("wake latency, sched_waking -> switch-in, of RT threads and the "
                                "threads that serve softirqs (dropped: wakeups cut by lost events):",
                                options.width, "")) {
    lines.push_back(std::move(line));
  }
  std::vector<const WakeLatencyRow*> rows;
  for (const WakeLatencyRow& row : report.rt_wake_latency) rows.push_back(&row);
  std::stable_sort(rows.begin(), rows.end(), [](const WakeLatencyRow* a, const WakeLatencyRow* b) {
    if (a->comm != b->comm) return NaturalLess(a->comm, b->comm);
    return a->cpu < b->cpu;
  });
  TextTable table(
      {"<thread", "pid", "<prio", "cpu", "count", "min", "p50", "p99", "max", "dropped"}, 2);
  for (const WakeLatencyRow* row : rows) {
    std::string prio = FormatPriority(row->prio);
    table.Add({row->comm, fmt::format("{}", row->pid), prio.empty() ? "normal" : prio,
               fmt::format("{}", row->cpu), fmt::format("{}", row->latency.count),
               FormatDuration(row->latency.min_ns), FormatDuration(row->latency.p50_ns),
               FormatDuration(row->latency.p99_ns), FormatDuration(row->latency.max_ns),
               fmt::format("{}", row->dropped)});
  }
  table.AppendTo(options.width, lines);

  struct Longest {
    const WakeLatencyRow* row;
    const WakeLatencySample* sample;
  };
  std::vector<Longest> longest;
  for (const WakeLatencyRow& row : report.rt_wake_latency) {
    if (row.policy != SchedPolicyClass::kRealtime) continue;
    for (const WakeLatencySample& sample : row.worst) longest.push_back({&row, &sample});
  }
  if (longest.empty()) return;
  std::stable_sort(longest.begin(), longest.end(), [](const Longest& a, const Longest& b) {
    return a.sample->latency_ns > b.sample->latency_ns;
  });
  lines.push_back("");
  lines.push_back(fmt::format("the {} longest wakeups of RT threads and what held the CPU:",
                              std::min(longest.size(), options.top)));
  for (size_t i = 0; i < longest.size() && i < options.top; ++i) {
    const WakeLatencyRow& row = *longest[i].row;
    const WakeLatencySample& sample = *longest[i].sample;
    std::vector<std::string> holders;
    for (size_t h = 0; h < sample.blame.size() && h < kTextHolders; ++h) {
      holders.push_back(DescribeWakeHolder(sample.blame[h], sample.latency_ns, row.prio));
    }
    if (sample.blame.size() > kTextHolders) {
      holders.push_back(fmt::format("{} more", sample.blame.size() - kTextHolders));
    }
    if (sample.unknown_ns > 0) holders.push_back(FormatDuration(sample.unknown_ns) + " unknown");
    std::string sentence =
        fmt::format("{} on CPU{} {}, woken {} from CPU{}: {}", DescribeTask(row.pid, row.comm, row.prio),
                    row.cpu, FormatDuration(sample.latency_ns), FormatTimestamp(sample.waking_ns),
                    sample.waker_cpu, fmt::join(holders, ", "));
    for (std::string& line : Wrap(sentence, options.width, "  ", "      ")) {
      lines.push_back(std::move(line));
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

std::vector<std::string> NapiRtText(const Report& report, const TextReportOptions& options) {
  std::vector<std::string> lines;
  NapiLines(report, options.width, lines);
  WakeLines(report, options, lines);
  return lines;
}

bool HasBacklogPolls(const Report& report) {
  return std::any_of(report.napi.begin(), report.napi.end(),
                     [](const NapiRow& row) { return row.IsBacklog(); });
}

std::string KernelModelLine(const KernelModel& kernel) {
  return fmt::format("PREEMPT_RT: {} ({})", kernel.preempt_rt, kernel.evidence);
}

}  // namespace napiscope::internal
