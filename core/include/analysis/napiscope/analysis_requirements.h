// Whether the recorded events let each analysis run (the events each needs are in its
// descriptor, analysis_descriptor.h), so a missing one is reported instead of silence.
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

/// Decides which analyses the counted events allow. An event counts as recorded when it
/// occurred, or when `enabled_events` (TraceMeta::enabled_events, sorted) says it was enabled:
/// then none happened, and an analysis that needs it runs and finds nothing.
std::vector<AnalysisAvailability> CheckAnalyses(
    const std::vector<EventNameCount>& counts, const std::vector<std::string>& event_formats,
    const std::vector<std::string>& enabled_events = {});

/// The summary `builder` made of a loaded trace, with the analyses its events allow filled in.
TraceSummary FinishSummary(const TraceSummaryBuilder& builder, const TraceContext& context);

/// True for the analyses (descriptor keys) whose results a Report holds.
bool ReportRunsAnalysis(std::string_view id);

/// The event part of "system:event".
std::string_view EventPartOf(std::string_view qualified_name);

}  // namespace napiscope
