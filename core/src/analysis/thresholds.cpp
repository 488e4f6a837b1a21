#include "napiscope/thresholds.h"

namespace napiscope {

namespace {

int64_t Override(const std::map<uint32_t, int64_t>& by_vec, uint32_t vec, int64_t fallback_ns) {
  auto it = by_vec.find(vec);
  return it == by_vec.end() ? fallback_ns : it->second;
}

}  // namespace

int64_t Thresholds::SoftirqLatencyP99WarningNs(uint32_t vec) const {
  return Override(softirq_latency_p99_warning_ns_by_vec, vec, softirq_latency_p99_warning_ns);
}

int64_t Thresholds::SoftirqLatencyMaxErrorNs(uint32_t vec) const {
  return Override(softirq_latency_max_error_ns_by_vec, vec, softirq_latency_max_error_ns);
}

}  // namespace napiscope
