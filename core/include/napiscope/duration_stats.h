// Count, percentiles and extremes of a set of durations, as every latency table shows them.
#pragma once

#include <cstdint>

#include "napiscope/event.h"

namespace napiscope {

/// Count, nearest-rank percentiles and extremes of a set of durations.
/// Percentile p is the value of rank ceil(p/100 * count) (1-based) in ascending order.
struct DurationStats {
  int64_t count = 0;
  int64_t min_ns = 0;
  int64_t p50_ns = 0;
  int64_t p90_ns = 0;
  int64_t p99_ns = 0;
  int64_t p999_ns = 0;
  int64_t max_ns = 0;
  TimestampNs max_at_ns = 0;  ///< start of the (first) longest one: the raise, or the entry
  /// False when the row had more samples than kept exactly; percentiles are then the upper
  /// bound of a bucket 0.1% wide (never below the true value). count/min/max are always exact.
  bool exact = true;
};

}  // namespace napiscope
