#include "load/tracedat_header.h"

#include <algorithm>

#include <absl/numeric/int128.h>

namespace napiscope::internal {

// mul_u64_u32_shr without overflow; Abseil's, as 32-bit targets (armhf) have no __int128.
using Uint128 = absl::uint128;

TimestampConversion TimeConversionOfCpu(const TraceDatHeader& header, int cpu) {
  TimestampConversion conversion = header.time;
  const GuestTimeShift& shift = header.time_shift;
  if (cpu >= 0 && static_cast<size_t>(cpu) < shift.cpus.size() && !shift.cpus[cpu]->empty()) {
    conversion.host_sync = shift.cpus[cpu];
    conversion.interpolate = shift.interpolate();
  }
  return conversion;
}

uint64_t DataBytes(const std::vector<CpuDataExtent>& extents) {
  uint64_t bytes = 0;
  for (const CpuDataExtent& extent : extents) bytes += extent.size;
  return bytes;
}

uint64_t ConvertTimestamp(const TimestampConversion& conversion, uint64_t raw) {
  if (conversion.host_sync != nullptr &&
      !GuestToHostTime(*conversion.host_sync, conversion.interpolate, raw, &raw)) {
    return UINT64_MAX;
  }
  Uint128 scaled = raw;
  if (conversion.mult != 0) {
    scaled = (scaled * conversion.mult) >> static_cast<int>(conversion.shift);
  }
  int64_t shifted = 0;
  if (scaled > static_cast<Uint128>(INT64_MAX) ||
      __builtin_add_overflow(static_cast<int64_t>(scaled), conversion.offset_ns, &shifted) ||
      shifted < 0) {
    return UINT64_MAX;
  }
  return static_cast<uint64_t>(shifted);
}

uint64_t MaxChunkBytes(int page_size) {
  return std::min<uint64_t>(kMaxChunkPages * static_cast<uint64_t>(page_size), 64u << 20);
}

uint64_t ReadFileInt(const uint8_t* data, int bytes, bool big_endian) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    int shift = big_endian ? (bytes - 1 - i) * 8 : i * 8;
    value |= static_cast<uint64_t>(data[i]) << shift;
  }
  return value;
}

uint64_t PageDataBytes(const uint8_t* page, int long_size, bool big_endian) {
  constexpr uint64_t kCommitSizeMask = (uint64_t{1} << 27) - 1;  // kbuffer: flags sit above
  return ReadFileInt(page + 8, long_size, big_endian) & kCommitSizeMask;
}

}  // namespace napiscope::internal
