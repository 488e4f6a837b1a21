// Thresholds of the finding rules, with their defaults; configuration layers go on top.
#pragma once

#include <cstdint>

namespace napiscope {

/// When a rule turns a measurement into a finding. A value <= 0 disables that check.
struct Thresholds {
  /// softirq-latency: warning when the p99 raise-to-entry delay of a (cpu, vec) exceeds this.
  int64_t softirq_latency_p99_warning_ns = 1'000'000;
  /// softirq-latency: error when the max raise-to-entry delay of a (cpu, vec) exceeds this.
  int64_t softirq_latency_max_error_ns = 5'000'000;
};

}  // namespace napiscope
