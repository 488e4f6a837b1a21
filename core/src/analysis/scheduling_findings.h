// Finding rules for thread placement, blocked ksoftirqd, idle with pending softirqs and
// softirq ordering stalls.
#pragma once

#include <string>
#include <vector>

#include "napiscope/findings.h"
#include "napiscope/scheduling_rows.h"
#include "napiscope/thresholds.h"

namespace napiscope::internal {

/// irq-thread-pingpong / napi-thread-pingpong: a thread often runs on another CPU than the one
/// that woke it (its hard IRQ's, for IRQ threads) and bounces between CPUs (docs/definitions.md,
/// "Ping-pong"); *-placement (info) when it is woken remotely but does not bounce.
void PingPongFindings(const std::vector<ThreadActivityRow>& rows, const Thresholds& thresholds,
                      std::vector<Finding>* findings);

/// ksoftirqd-blocked: the longest interval per CPU in which ksoftirqd was switched out with
/// softirqs pending, with the chain behind it.
void KsoftirqdBlockedFindings(const std::vector<KsoftirqdBlockedRow>& rows,
                              const Thresholds& thresholds, std::vector<Finding>* findings);

/// softirq-pending-at-idle: per CPU, switches to idle with softirqs pending (the kernel's NOHZ
/// warning); notes the 6.1-rt / 6.4-rt false positives when `kernel_release` is one.
void IdlePendingFindings(const std::vector<IdleWithPendingRow>& rows,
                         const std::string& kernel_release, const Thresholds& thresholds,
                         std::vector<Finding>* findings);

/// softirq-ordering-stall: per (cpu, vec), the longest wait behind a lower vector in progress.
void OrderingStallFindings(const std::vector<SoftirqOrderingStallRow>& rows,
                           const Thresholds& thresholds, std::vector<Finding>* findings);

}  // namespace napiscope::internal
