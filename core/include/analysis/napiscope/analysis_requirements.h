// Which recorded events each analysis needs, so a missing one is reported instead of silence.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/trace_summary.h"

namespace napiscope {

/// One event an analysis reads, or alternatives of which any one will do (kernels before 4.3
/// record a wakeup as sched_wakeup, later ones as sched_waking).
struct EventNeed {
  EventNeed(const char* name) : any_of{name} {}  ///< one "system:event" name
  EventNeed(std::initializer_list<std::string_view> names) : any_of(names) {}  ///< alternatives
  std::vector<std::string_view> any_of;  ///< "system:event" names, the usual one first
};

/// The events one analysis reads ("system:event" names).
struct AnalysisRequirement {
  std::string_view id;              ///< stable key ("softirq_latency")
  std::string_view title;           ///< for people ("softirq raise-to-entry latency")
  std::vector<EventNeed> required;  ///< without these the analysis cannot run
  std::vector<EventNeed> optional;  ///< make the analysis more complete when present
};

/// The requirement of every analysis napiscope has, in report order.
const std::vector<AnalysisRequirement>& AnalysisRequirements();

/// The requirement with `id`, or nullptr.
const AnalysisRequirement* FindAnalysisRequirement(std::string_view id);

/// Decides which analyses the counted events allow.
std::vector<AnalysisAvailability> CheckAnalyses(const std::vector<EventNameCount>& counts,
                                                const std::vector<std::string>& event_formats);

/// The summary `builder` made of a loaded trace, with the analyses its events allow filled in.
TraceSummary FinishSummary(const TraceSummaryBuilder& builder, const TraceContext& context);

/// True for the analyses (AnalysisRequirements ids) whose results a Report holds.
bool ReportRunsAnalysis(std::string_view id);

/// The event part of "system:event".
std::string_view EventPartOf(std::string_view qualified_name);

}  // namespace napiscope
