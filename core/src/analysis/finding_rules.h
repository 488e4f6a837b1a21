// The rules that turn report rows into findings.
#pragma once

#include <vector>

#include "napiscope/report.h"
#include "napiscope/thresholds.h"

namespace napiscope::internal {

/// softirq-latency: p99 above the warning threshold, or max above the error threshold.
void SoftirqLatencyFindings(const std::vector<SoftirqLatencyRow>& rows,
                            const Thresholds& thresholds, std::vector<Finding>* findings);

/// analysis-unavailable: an analysis of this report could not run on the recorded events.
void UnavailableAnalysisFindings(const TraceSummary& trace, std::vector<Finding>* findings);

/// Orders findings most severe first, then by CPU and time, so output is stable.
void SortFindings(std::vector<Finding>* findings);

}  // namespace napiscope::internal
