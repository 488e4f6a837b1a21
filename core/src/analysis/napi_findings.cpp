#include <map>
#include <utility>

#include <fmt/format.h>

#include "analysis/napi_rt_findings.h"

namespace napiscope::internal {
namespace {

// The rows of one NAPI instance summed over CPUs and contexts.
struct InstanceTotals {
  std::string dev;
  int32_t budget = 0;
  int64_t polls = 0;
  int64_t exhausted = 0;
  int64_t work = 0;
  int64_t longest_chain = 0;
  TimestampNs longest_chain_start_ns = 0;
  TimestampNs longest_chain_end_ns = 0;
  std::map<SoftirqSite, int64_t> polls_by_context;
  std::map<int, int64_t> polls_by_cpu;
  int32_t kthread_pid = -1;  // the NAPI kthread with the most polls, threaded NAPI
  int64_t kthread_polls = 0;
};

std::string ContextShares(const InstanceTotals& totals) {
  std::string text;
  for (const auto& [site, polls] : totals.polls_by_context) {
    text += fmt::format("{}{} {:.0f}%", text.empty() ? "" : ", ", NapiContextName(site),
                        100.0 * static_cast<double>(polls) / static_cast<double>(totals.polls));
  }
  return text;
}

std::string Tuning(const InstanceTotals& totals, bool moved_to_ksoftirqd, bool threaded) {
  if (totals.dev == kBacklogNapiDevice) {
    return "The backlog is fed by netif_rx/RPS; net.core.dev_weight sets its budget and "
           "net.core.netdev_budget / netdev_budget_usecs bound a NET_RX run.";
  }
  if (threaded) {
    std::string pin = totals.kthread_pid >= 0
                          ? fmt::format("pid {0}: taskset -pc CPU {0}", totals.kthread_pid)
                          : fmt::format("taskset -pc CPU PID of napi/{}-*", totals.dev);
    return fmt::format(
        "Threaded NAPI keeps polling in its kthread while polls use the whole budget; pin it "
        "({}) with the device IRQ, and consider IRQ coalescing (ethtool -C {} rx-usecs N) or "
        "napi_defer_hard_irqs / gro_flush_timeout in /sys/class/net/{}/.",
        pin, totals.dev, totals.dev);
  }
  std::string moved =
      moved_to_ksoftirqd
          ? "NET_RX ran out of net.core.netdev_budget / netdev_budget_usecs and the rest of the "
            "polling went to ksoftirqd, where it competes with every task at normal priority. "
          : "";
  return fmt::format(
      "{}Mechanisms: a larger net.core.netdev_budget / netdev_budget_usecs, threaded NAPI "
      "(echo 1 > /sys/class/net/{}/threaded) with the napi/{}-* thread pinned and prioritised, "
      "IRQ coalescing (ethtool -C {} rx-usecs N).",
      moved, totals.dev, totals.dev, totals.dev);
}

}  // namespace

void NapiBudgetFindings(const std::vector<NapiRow>& rows, const Thresholds& t,
                        std::vector<Finding>* findings) {
  if (t.napi_exhausted_share <= 0) return;
  std::map<std::pair<uint64_t, std::string>, InstanceTotals> instances;
  for (const NapiRow& row : rows) {
    InstanceTotals& totals = instances[{row.napi, row.dev}];
    totals.dev = row.dev;
    totals.budget = std::max(totals.budget, row.budget);
    totals.polls += row.polls;
    totals.exhausted += row.exhausted;
    totals.work += row.work;
    if (row.max_consecutive_exhausted > totals.longest_chain) {
      totals.longest_chain = row.max_consecutive_exhausted;
      totals.longest_chain_start_ns = row.longest_chain_start_ns;
      totals.longest_chain_end_ns = row.longest_chain_end_ns;
    }
    totals.polls_by_context[row.context] += row.polls;
    totals.polls_by_cpu[row.cpu] += row.polls;
    if (row.kthread_pid >= 0 && row.polls > totals.kthread_polls) {
      totals.kthread_pid = row.kthread_pid;
      totals.kthread_polls = row.polls;
    }
  }
  for (const auto& instance : instances) {
    const auto& key = instance.first;
    const auto& totals = instance.second;
    if (totals.polls < std::max<int64_t>(1, t.napi_min_polls)) continue;
    double share = static_cast<double>(totals.exhausted) / static_cast<double>(totals.polls);
    if (share < t.napi_exhausted_share) continue;
    auto polls_in = [&](SoftirqSite site) {
      auto found = totals.polls_by_context.find(site);
      return found == totals.polls_by_context.end() ? int64_t{0} : found->second;
    };
    double ksoftirqd_share =
        static_cast<double>(polls_in(SoftirqSite::kKsoftirqd)) / static_cast<double>(totals.polls);
    bool moved = t.napi_ksoftirqd_share > 0 && ksoftirqd_share >= t.napi_ksoftirqd_share;
    bool threaded = polls_in(SoftirqSite::kNapiKthread) * 2 > totals.polls;
    Finding finding;
    finding.rule = "napi-budget-exhausted";
    finding.severity = moved ? Severity::kWarning : Severity::kInfo;
    if (totals.polls_by_cpu.size() == 1) finding.cpu = totals.polls_by_cpu.begin()->first;
    finding.start_ns = totals.longest_chain_start_ns;
    finding.end_ns = totals.longest_chain_end_ns;
    finding.summary = fmt::format(
        "NAPI {} ({:#x}) used its whole budget of {} in {} of {} polls ({:.0f}%), up to {} in a "
        "row; {} packets, {:.1f} per poll; polls ran in {}. {}",
        totals.dev, key.first, totals.budget, totals.exhausted, totals.polls, share * 100,
        totals.longest_chain, totals.work,
        static_cast<double>(totals.work) / static_cast<double>(totals.polls),
        ContextShares(totals), Tuning(totals, moved, threaded));
    nlohmann::json contexts = nlohmann::json::object();
    for (const auto& [site, polls] : totals.polls_by_context) {
      contexts[std::string(NapiContextName(site))] = polls;
    }
    finding.evidence = {{"napi", fmt::format("{:#x}", key.first)},
                        {"dev", totals.dev},
                        {"budget", totals.budget},
                        {"polls", totals.polls},
                        {"exhausted", totals.exhausted},
                        {"exhausted_share", share},
                        {"max_consecutive_exhausted", totals.longest_chain},
                        {"ksoftirqd_share", ksoftirqd_share},
                        {"polls_by_context", contexts}};
    if (threaded && totals.kthread_pid >= 0) finding.evidence["kthread_pid"] = totals.kthread_pid;
    findings->push_back(std::move(finding));
  }
}

}  // namespace napiscope::internal
