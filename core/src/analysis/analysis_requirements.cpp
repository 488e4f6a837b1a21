#include "napiscope/analysis_requirements.h"

#include <algorithm>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <fmt/format.h>

#include "napiscope/analysis_descriptor.h"

namespace napiscope {

std::vector<AnalysisAvailability> CheckAnalyses(const std::vector<EventNameCount>& counts,
                                                const std::vector<std::string>& event_formats,
                                                const std::vector<std::string>& enabled_events) {
  absl::flat_hash_map<std::string_view, int64_t> by_name;
  for (const EventNameCount& count : counts) by_name[count.name] = count.total;
  auto recorded = [&](const EventNeed& need) {
    return std::any_of(need.any_of.begin(), need.any_of.end(), [&](std::string_view qualified) {
      auto it = by_name.find(EventPartOf(qualified));
      return (it != by_name.end() && it->second > 0) ||
             std::binary_search(enabled_events.begin(), enabled_events.end(), qualified);
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
  for (const AnalysisDescriptor& analysis : AnalysisDescriptors()) {
    AnalysisAvailability availability;
    availability.id = std::string(analysis.key);
    availability.title = std::string(analysis.title);
    bool all_known = true;  // every missing event's format is in the file
    for (const EventNeed& event : analysis.required) {
      if (recorded(event)) continue;
      availability.missing_required.push_back(named(event));
      all_known = all_known && has_format(event);
    }
    for (const EventNeed& event : analysis.optional) {
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
  summary.analyses =
      CheckAnalyses(summary.counts, context.meta.event_formats, context.meta.enabled_events);
  return summary;
}

bool ReportRunsAnalysis(std::string_view id) {
  const auto& analyses = AnalysisDescriptors();
  return std::any_of(analyses.begin(), analyses.end(),
                     [&](const AnalysisDescriptor& analysis) { return analysis.key == id; });
}

std::string_view EventPartOf(std::string_view qualified_name) {
  size_t colon = qualified_name.find(':');
  return colon == std::string_view::npos ? qualified_name : qualified_name.substr(colon + 1);
}

}  // namespace napiscope
