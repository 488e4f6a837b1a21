#include "napiscope/rule_registry.h"

namespace napiscope {

const std::vector<FindingRuleInfo>& FindingRules() {
  static const std::vector<FindingRuleInfo> kRules = {
      {"analysis-unavailable", "", "every analysis had the events it needs"},
      {"softirq-latency", "softirq_latency", "softirq raise-to-entry latency within limits"},
      {"irq-thread-pingpong", "irq_thread_pingpong", "IRQ threads do not bounce between CPUs"},
      {"irq-thread-placement", "irq_thread_pingpong", "IRQ threads run where their IRQ fires"},
      {"napi-thread-pingpong", "napi_thread_pingpong", "NAPI threads do not bounce between CPUs"},
      {"napi-thread-placement", "napi_thread_pingpong", "NAPI threads run where they are woken"},
      {"ksoftirqd-blocked", "ksoftirqd_blocked", "ksoftirqd is not blocked with work pending"},
      {"softirq-pending-at-idle", "idle_with_pending", "no CPU goes idle with softirqs pending"},
      {"softirq-ordering-stall", "idle_with_pending", "no softirq waits behind a lower vector"},
      {"napi-budget-exhausted", "napi", "NAPI polls rarely use their whole budget"},
      {"rt-wake-latency", "rt_wake_latency", "RT threads run soon after their wakeup"},
      {"softirq-starvation", "rt_wake_latency", "softirqs do not wait behind RT tasks"},
      {"net-path-priority", "net_path",
       "NIC IRQ threads above their NET_RX runners, both above the RT tasks that starve them"},
  };
  return kRules;
}

const FindingRuleInfo* FindFindingRule(std::string_view id) {
  for (const FindingRuleInfo& rule : FindingRules()) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

}  // namespace napiscope
