// Collects durations and turns them into DurationStats (nearest-rank percentiles).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "napiscope/report.h"

namespace napiscope::internal {

/// Keeps every duration exactly up to `exact_limit` samples, then folds them into a log-linear
/// histogram with buckets 1/1024 wide (exact below 2048 ns), so memory stays bounded on long
/// traces. count, min, max and max_at are exact either way.
class DurationRecorder {
 public:
  /// Samples kept exactly per recorder by default (256 KiB): a report holds a recorder per
  /// CPU and vector or IRQ, so this bounds its memory; beyond it percentiles are within 0.1 %.
  static constexpr size_t kDefaultExactLimit = size_t{1} << 16;

  explicit DurationRecorder(size_t exact_limit = kDefaultExactLimit) : exact_limit_(exact_limit) {}

  /// Adds one duration that began at `start_ns`. Negative durations are clamped to 0.
  void Add(int64_t duration_ns, TimestampNs start_ns);

  /// Number of durations added.
  int64_t count() const { return count_; }

  /// The statistics of everything added so far.
  DurationStats Stats() const;

 private:
  void Fold();
  void Count(int64_t duration_ns);

  size_t exact_limit_;
  int64_t count_ = 0;
  int64_t min_ns_ = 0;
  int64_t max_ns_ = 0;
  TimestampNs max_at_ns_ = 0;
  // Samples kept exactly: those under 2^32 ns (4.3 s; nearly all) in 4 bytes each, since
  // holding them is most of a long report's memory and its page faults, the rest in 8.
  std::vector<uint32_t> exact_;
  std::vector<int64_t> exact_long_;
  // Samples per bucket key (at most 56 Ki keys, 1/1024 wide, for any int64), once past
  // exact_limit_: a count by index, where a tree map took a lookup of a dozen nodes per sample.
  std::vector<int64_t> buckets_;
};

/// Rank (1-based) of the nearest-rank percentile `per_mille`/10 % of `count` samples:
/// ceil(per_mille * count / 1000), at least 1.
int64_t NearestRank(int64_t per_mille, int64_t count);

}  // namespace napiscope::internal
