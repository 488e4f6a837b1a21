#include "napiscope/duration_stats.h"

#include <algorithm>
#include <bit>

namespace napiscope {

int LogHistogram::BucketOf(int64_t duration_ns) {
  if (duration_ns <= 1) return 0;
  int bucket = std::bit_width(static_cast<uint64_t>(duration_ns)) - 1;
  return std::min(bucket, kBuckets - 1);
}

void LogHistogram::Add(int64_t duration_ns) {
  ++counts[BucketOf(duration_ns)];
  ++total;
}

}  // namespace napiscope
