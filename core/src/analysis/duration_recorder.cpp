#include "analysis/duration_recorder.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace napiscope::internal {
namespace {

constexpr int kMantissaBits = 11;  // values below 2^11 get a bucket each
constexpr uint64_t kExactBelow = uint64_t{1} << kMantissaBits;
constexpr uint64_t kHalf = kExactBelow / 2;

// Monotonic bucket key: the value itself below 2048, else (exponent, top 11 bits).
uint64_t BucketOf(uint64_t value) {
  if (value < kExactBelow) return value;
  int shift = std::bit_width(value) - kMantissaBits;
  uint64_t mantissa = value >> shift;  // in [1024, 2047]
  return kExactBelow + static_cast<uint64_t>(shift - 1) * kHalf + (mantissa - kHalf);
}

// The largest value in a bucket.
uint64_t BucketUpper(uint64_t key) {
  if (key < kExactBelow) return key;
  uint64_t offset = key - kExactBelow;
  int shift = static_cast<int>(offset / kHalf) + 1;
  uint64_t mantissa = offset % kHalf + kHalf;
  return ((mantissa + 1) << shift) - 1;
}

}  // namespace

int64_t NearestRank(int64_t per_mille, int64_t count) {
  int64_t rank = (per_mille * count + 999) / 1000;
  return std::max<int64_t>(rank, 1);
}

void DurationRecorder::Add(int64_t duration_ns, TimestampNs start_ns) {
  duration_ns = std::max<int64_t>(duration_ns, 0);
  if (count_ == 0 || duration_ns < min_ns_) min_ns_ = duration_ns;
  if (count_ == 0 || duration_ns > max_ns_) {
    max_ns_ = duration_ns;
    max_at_ns_ = start_ns;
  }
  ++count_;
  if (buckets_.empty() && exact_.size() + exact_long_.size() < exact_limit_) {
    if (duration_ns <= std::numeric_limits<uint32_t>::max()) {
      exact_.push_back(static_cast<uint32_t>(duration_ns));
    } else {
      exact_long_.push_back(duration_ns);
    }
    return;
  }
  if (!exact_.empty() || !exact_long_.empty()) Fold();
  Count(duration_ns);
}

void DurationRecorder::Count(int64_t duration_ns) {
  const uint64_t key = BucketOf(static_cast<uint64_t>(duration_ns));
  if (key >= buckets_.size()) buckets_.resize(key + 1, 0);
  ++buckets_[key];
}

void DurationRecorder::Fold() {
  for (uint32_t value : exact_) Count(value);
  for (int64_t value : exact_long_) Count(value);
  exact_ = {};
  exact_long_ = {};
}

DurationStats DurationRecorder::Stats() const {
  DurationStats stats;
  stats.count = count_;
  if (count_ == 0) return stats;
  stats.min_ns = min_ns_;
  stats.max_ns = max_ns_;
  stats.max_at_ns = max_at_ns_;
  constexpr int64_t kPerMille[] = {500, 900, 990, 999};
  int64_t* outputs[] = {&stats.p50_ns, &stats.p90_ns, &stats.p99_ns, &stats.p999_ns};
  if (buckets_.empty()) {
    // Each percentile by selection, not a sort: the ranks ascend, so each selection only
    // needs the part above the one before it.
    std::vector<int64_t> values(exact_.begin(), exact_.end());
    values.insert(values.end(), exact_long_.begin(), exact_long_.end());
    auto above = values.begin();
    for (size_t i = 0; i < 4; ++i) {
      auto nth = values.begin() + (NearestRank(kPerMille[i], count_) - 1);
      std::nth_element(above, nth, values.end());
      *outputs[i] = *nth;
      above = nth;
    }
    return stats;
  }
  stats.exact = false;
  // One walk up the buckets: each percentile is the first bucket its rank falls in.
  size_t next = 0;
  int64_t seen = 0;
  for (size_t key = 0; key < buckets_.size() && next < 4; ++key) {
    seen += buckets_[key];
    for (; next < 4 && seen >= NearestRank(kPerMille[next], count_); ++next) {
      *outputs[next] = std::min<int64_t>(static_cast<int64_t>(BucketUpper(key)), max_ns_);
    }
  }
  return stats;
}

}  // namespace napiscope::internal
