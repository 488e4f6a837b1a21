// Count, percentiles and extremes of a set of durations, as every latency table shows them, and
// durations counted in power-of-two buckets for histograms.
#pragma once

#include <array>
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

/// Durations counted in power-of-two buckets: bucket b holds [2^b, 2^(b+1)) ns (0 ns in 0).
struct LogHistogram {
  static constexpr int kBuckets = 40;  ///< up to 2^40 ns, about 18 minutes
  std::array<int64_t, kBuckets> counts{};  ///< durations per bucket
  int64_t total = 0;                       ///< durations counted

  /// The bucket of `duration_ns`.
  static int BucketOf(int64_t duration_ns);
  /// Lower bound of bucket `b` in ns.
  static int64_t BucketStartNs(int b) { return b == 0 ? 0 : int64_t{1} << b; }
  /// Counts one duration.
  void Add(int64_t duration_ns);
};

}  // namespace napiscope
