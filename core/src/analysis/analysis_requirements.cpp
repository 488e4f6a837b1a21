#include "napiscope/analysis_requirements.h"

#include <algorithm>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <fmt/format.h>

namespace napiscope {

namespace {

// A task's wakeup: kernels before 4.3 record only sched_wakeup.
const EventNeed kWake = {"sched:sched_waking", "sched:sched_wakeup"};

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

std::vector<AnalysisAvailability> CheckAnalyses(const std::vector<EventNameCount>& counts,
                                                const std::vector<std::string>& event_formats) {
  absl::flat_hash_map<std::string_view, int64_t> by_name;
  for (const EventNameCount& count : counts) by_name[count.name] = count.total;
  auto recorded = [&](const EventNeed& need) {
    return std::any_of(need.any_of.begin(), need.any_of.end(), [&](std::string_view qualified) {
      auto it = by_name.find(EventPartOf(qualified));
      return it != by_name.end() && it->second > 0;
    });
  };
  auto has_format = [&](const EventNeed& need) {
    return std::any_of(need.any_of.begin(), need.any_of.end(), [&](std::string_view qualified) {
      return std::binary_search(event_formats.begin(), event_formats.end(), qualified);
    });
  };
  auto named = [](const EventNeed& need) {
    return fmt::format("{}", fmt::join(need.any_of, " or "));
  };
  std::vector<AnalysisAvailability> result;
  for (const AnalysisRequirement& requirement : AnalysisRequirements()) {
    AnalysisAvailability availability;
    availability.id = std::string(requirement.id);
    availability.title = std::string(requirement.title);
    bool all_known = true;  // every missing event's format is in the file
    for (const EventNeed& event : requirement.required) {
      if (recorded(event)) continue;
      availability.missing_required.push_back(named(event));
      all_known = all_known && has_format(event);
    }
    for (const EventNeed& event : requirement.optional) {
      if (!recorded(event)) availability.missing_optional.push_back(named(event));
    }
    availability.available = availability.missing_required.empty();
    if (!availability.available) {
      availability.note =
          absl::StrCat("needs ", absl::StrJoin(availability.missing_required, ", "),
                       // The file has the event's format: napiscope record and live keep only
                       // the enabled events', trace-cmd a whole system's, so it may have been
                       // enabled and never happened (a NIC without traffic polls nothing).
                       all_known ? ": the kernel had the event but none was recorded (not "
                                   "enabled, or it never happened)"
                                 : ": not recorded");
    } else if (!availability.missing_optional.empty()) {
      availability.note = absl::StrCat("runs; less complete without ",
                                       absl::StrJoin(availability.missing_optional, ", "));
    } else {
      availability.note = "runs";
    }
    result.push_back(std::move(availability));
  }
  return result;
}

TraceSummary FinishSummary(const TraceSummaryBuilder& builder, const TraceContext& context) {
  TraceSummary summary = builder.Finish(context);
  summary.analyses = CheckAnalyses(summary.counts, context.meta.event_formats);
  return summary;
}

bool ReportRunsAnalysis(std::string_view id) { return FindAnalysisRequirement(id) != nullptr; }

std::string_view EventPartOf(std::string_view qualified_name) {
  size_t colon = qualified_name.find(':');
  return colon == std::string_view::npos ? qualified_name : qualified_name.substr(colon + 1);
}

}  // namespace napiscope
