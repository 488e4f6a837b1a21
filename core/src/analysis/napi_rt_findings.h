// The rules on NAPI budgets, RT wake latency and softirq starvation by RT tasks.
#pragma once

#include <vector>

#include "napiscope/report.h"
#include "napiscope/thresholds.h"

namespace napiscope::internal {

/// napi-budget-exhausted: per NAPI instance, a large share of polls used the whole budget.
void NapiBudgetFindings(const std::vector<NapiRow>& rows, const Thresholds& thresholds,
                        std::vector<Finding>* findings);

/// rt-wake-latency: an RT thread was switched in later than the threshold after its wakeup.
void RtWakeLatencyFindings(const std::vector<WakeLatencyRow>& rows, const Thresholds& thresholds,
                           std::vector<Finding>* findings);

/// softirq-starvation: RT tasks held a CPU past the threshold while a softirq raised there, or
/// a woken softirq-serving thread (ksoftirqd, NAPI kthread, IRQ thread), waited.
void SoftirqStarvationFindings(const std::vector<SoftirqLatencyRow>& softirq_rows,
                               const std::vector<WakeLatencyRow>& wake_rows,
                               const Thresholds& thresholds, std::vector<Finding>* findings);

}  // namespace napiscope::internal
