#include "napiscope/analysis_requirements.h"

namespace napiscope {

namespace {

// A task's wakeup: kernels before 4.3 record only sched_wakeup.
constexpr std::string_view kWake = "sched:sched_waking|sched:sched_wakeup";

}  // namespace

const std::vector<AnalysisRequirement>& AnalysisRequirements() {
  static const std::vector<AnalysisRequirement> kRequirements = {
      {"contexts",
       "execution contexts and CPU time",
       {"sched:sched_switch"},
       {"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
        "napi:napi_poll"}},
      {"softirq_latency",
       "softirq raise-to-entry latency",
       {"irq:softirq_raise", "irq:softirq_entry"},
       {"sched:sched_switch", "irq:irq_handler_entry", "irq:softirq_exit"}},
      {"irq_thread_pingpong",
       "IRQ-thread ping-pong",
       {"irq:irq_handler_entry", "sched:sched_switch"},
       {"sched:sched_migrate_task", kWake}},
      {"napi_thread_pingpong",
       "NAPI-thread and ksoftirqd ping-pong",
       {kWake, "sched:sched_switch"},
       {"sched:sched_migrate_task"}},
      {"ksoftirqd_blocked",
       "blocked ksoftirqd chains",
       {"sched:sched_switch", kWake, "irq:softirq_raise", "irq:softirq_entry"},
       {"sched:sched_pi_setprio"}},
      {"idle_with_pending",
       "idle with softirqs pending",
       {"sched:sched_switch", "irq:softirq_raise", "irq:softirq_entry"},
       {}},
      {"napi",
       "NAPI polling and budget",
       {"napi:napi_poll"},
       {"irq:softirq_entry", "sched:sched_switch", "net:netif_receive_skb"}},
      {"rt_wake_latency",
       "RT wake latency",
       {kWake, "sched:sched_switch"},
       {"irq:irq_handler_entry", "irq:softirq_entry"}},
      {"net_path",
       "network path priorities",
       {"irq:irq_handler_entry", "sched:sched_switch", kWake},
       {"irq:softirq_raise", "irq:softirq_entry", "napi:napi_poll"}},
  };
  return kRequirements;
}

const AnalysisRequirement* FindAnalysisRequirement(std::string_view id) {
  for (const AnalysisRequirement& requirement : AnalysisRequirements()) {
    if (requirement.id == id) return &requirement;
  }
  return nullptr;
}

std::string_view EventPartOf(std::string_view qualified_name) {
  size_t colon = qualified_name.find(':');
  return colon == std::string_view::npos ? qualified_name : qualified_name.substr(colon + 1);
}

}  // namespace napiscope
