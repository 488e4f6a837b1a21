#include "load/tracedat_time_shift.h"

#include <algorithm>

#include <absl/numeric/int128.h>
#include <absl/strings/str_cat.h>

#include "load/time_plausibility.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {
namespace {

// Abseil's, not the compiler's __int128: 32-bit targets (armhf) have none.
using TimeShiftInt128 = absl::int128;

constexpr size_t kTimeShiftHeaderBytes = 16;    // trace id (8), flags (4), CPU count (4)
constexpr uint64_t kTimeShiftSampleBytes = 24;  // time, offset and scaling, 8 bytes each
constexpr uint64_t kTimeShiftFractionBytes = 8;
constexpr int64_t kMaxTimeShiftFraction = 63;

absl::Status CorruptTimeShift(const std::string& what) {
  return absl::DataLossError(absl::StrCat("corrupt TIME_SHIFT option: ", what));
}

// Reads the option's numbers in order; every read is checked against what is left.
class TimeShiftCursor {
 public:
  TimeShiftCursor(const uint8_t* data, size_t size, bool big_endian)
      : data_(data), size_(size), big_endian_(big_endian) {}
  size_t left() const { return size_ - pos_; }
  uint64_t Take(int bytes) {  // callers check left() first
    uint64_t value = ReadFileInt(data_ + pos_, bytes, big_endian_);
    pos_ += static_cast<size_t>(bytes);
    return value;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool big_endian_;
};

// Sorted by time, the first of equal times kept (libtracecmd's qsort, stable in glibc, then
// its filter of equal times), each sample's values checked.
absl::Status FinishCpuSamples(int cpu, TimeShiftSamples* samples) {
  for (size_t i = 0; i < samples->size(); ++i) {
    const TimeShiftSample& sample = (*samples)[i];
    std::string where = absl::StrCat("CPU ", cpu, " sample ", i);
    if (sample.time < 0)
      return CorruptTimeShift(absl::StrCat(where, " has a negative time ", sample.time));
    if (sample.scaling < 1) {
      return CorruptTimeShift(
          absl::StrCat(where, " has scaling ", sample.scaling, " (at least 1)"));
    }
    if (sample.fraction < 0 || sample.fraction > kMaxTimeShiftFraction) {
      return CorruptTimeShift(absl::StrCat(where, " has fraction ", sample.fraction, " (0..63)"));
    }
    const int fraction = static_cast<int>(sample.fraction);
    if (!PlausibleClockScaling(static_cast<uint64_t>(sample.scaling), fraction)) {
      return CorruptTimeShift(absl::StrCat(
          where, " scales the guest's clock by ", sample.scaling, " >> ", fraction, " = ",
          ClockScalingText(static_cast<uint64_t>(sample.scaling), fraction),
          "; no two clocks differ that much (1/64 to 1024)"));
    }
  }
  std::stable_sort(
      samples->begin(), samples->end(),
      [](const TimeShiftSample& a, const TimeShiftSample& b) { return a.time < b.time; });
  samples->erase(std::unique(samples->begin(), samples->end(),
                             [](const TimeShiftSample& a, const TimeShiftSample& b) {
                               return a.time == b.time;
                             }),
                 samples->end());
  return absl::OkStatus();
}

// *sum = a + b; false when that leaves the 128-bit range (__builtin_add_overflow, which has no
// 128-bit form where __int128 is missing).
bool AddTimeShift(TimeShiftInt128 a, TimeShiftInt128 b, TimeShiftInt128* sum) {
  if ((b > 0 && a > absl::Int128Max() - b) || (b < 0 && a < absl::Int128Min() - b)) return false;
  *sum = a + b;
  return true;
}

// The magnitude of `value`, exact for every value (the minimum too).
absl::uint128 TimeShiftMagnitude(TimeShiftInt128 value) {
  return value < 0 ? -static_cast<absl::uint128>(value) : static_cast<absl::uint128>(value);
}

// *product = a * b; false when that leaves the 128-bit range.
bool MultiplyTimeShift(TimeShiftInt128 a, TimeShiftInt128 b, TimeShiftInt128* product) {
  const absl::uint128 magnitude_a = TimeShiftMagnitude(a);
  const absl::uint128 magnitude_b = TimeShiftMagnitude(b);
  // A negative product may reach -2^127, a positive one 2^127 - 1.
  const bool negative = (a < 0) != (b < 0);
  const absl::uint128 limit = static_cast<absl::uint128>(absl::Int128Max()) + (negative ? 1 : 0);
  if (magnitude_a != 0 && magnitude_b > limit / magnitude_a) return false;
  *product = a * b;
  return true;
}

bool FitsHostTimeRange(TimeShiftInt128 value, uint64_t* host) {
  if (value < 0 || value > static_cast<TimeShiftInt128>(UINT64_MAX)) return false;
  *host = static_cast<uint64_t>(value);
  return true;
}

}  // namespace

absl::Status ParseTimeShiftOption(const uint8_t* data, size_t size, bool big_endian,
                                  GuestTimeShift* shift) {
  if (size < kTimeShiftHeaderBytes) {
    return CorruptTimeShift(
        absl::StrCat("its ", size, " bytes are shorter than its 16-byte header"));
  }
  TimeShiftCursor cursor(data, size, big_endian);
  GuestTimeShift parsed;
  parsed.present = true;
  parsed.host_trace_id = cursor.Take(8);
  parsed.flags = static_cast<uint32_t>(cursor.Take(4));
  const uint64_t cpus = cursor.Take(4);
  if (cpus > cursor.left() / 4) {  // each CPU needs at least its sample count
    return CorruptTimeShift(
        absl::StrCat("it claims ", cpus, " CPUs but has ", cursor.left(), " bytes for them"));
  }
  std::vector<TimeShiftSamples> samples(cpus);
  uint64_t total_samples = 0;
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    if (cursor.left() < 4)
      return CorruptTimeShift(absl::StrCat("CPU ", cpu, "'s sample count is cut off"));
    const uint64_t count = cursor.Take(4);
    if (count > cursor.left() / kTimeShiftSampleBytes) {
      return CorruptTimeShift(absl::StrCat("CPU ", cpu, " claims ", count, " samples but only ",
                                           cursor.left(), " bytes are left (truncated arrays)"));
    }
    TimeShiftSamples& cpu_samples = samples[cpu];
    cpu_samples.resize(count);
    for (TimeShiftSample& sample : cpu_samples) sample.time = static_cast<int64_t>(cursor.Take(8));
    for (TimeShiftSample& sample : cpu_samples) {
      sample.offset = static_cast<int64_t>(cursor.Take(8));
    }
    for (TimeShiftSample& sample : cpu_samples) {
      sample.scaling = static_cast<int64_t>(cursor.Take(8));
    }
    total_samples += count;
  }
  // Fractions follow for every CPU, or not at all (older trace-cmd); more bytes are ignored,
  // as libtracecmd ignores them.
  if (cursor.left() > 0) {
    if (total_samples > cursor.left() / kTimeShiftFractionBytes) {
      return CorruptTimeShift(absl::StrCat("its fraction arrays need ",
                                           total_samples * kTimeShiftFractionBytes, " bytes but ",
                                           cursor.left(), " are left (truncated arrays)"));
    }
    for (TimeShiftSamples& cpu_samples : samples) {
      for (TimeShiftSample& sample : cpu_samples) {
        sample.fraction = static_cast<int64_t>(cursor.Take(8));
      }
    }
  }
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    absl::Status status = FinishCpuSamples(static_cast<int>(cpu), &samples[cpu]);
    if (!status.ok()) return status;
    parsed.cpus.push_back(std::make_shared<const TimeShiftSamples>(std::move(samples[cpu])));
  }
  *shift = std::move(parsed);
  return absl::OkStatus();
}

std::vector<std::string> TimeShiftCpuWarnings(const GuestTimeShift& shift,
                                              const std::vector<int>& cpus_with_data,
                                              int trace_cpus) {
  std::vector<std::string> warnings;
  if (!shift.present) return warnings;
  const int listed = static_cast<int>(shift.cpus.size());
  if (listed > trace_cpus) {
    warnings.push_back(absl::StrCat("the TIME_SHIFT option has samples for ", listed,
                                    " CPUs but the trace has ", trace_cpus,
                                    "; the samples of the others are not used"));
  }
  std::vector<int> unshifted;
  for (int cpu : cpus_with_data) {
    if (cpu >= listed || shift.cpus[cpu]->empty()) unshifted.push_back(cpu);
  }
  if (!unshifted.empty()) {
    std::string list;
    for (size_t i = 0; i < unshifted.size() && i < 8; ++i) {
      absl::StrAppend(&list, i == 0 ? "" : ", ", unshifted[i]);
    }
    if (unshifted.size() > 8) absl::StrAppend(&list, ", ...");
    warnings.push_back(
        absl::StrCat("the TIME_SHIFT option has no samples for ", unshifted.size(),
                     unshifted.size() == 1 ? " CPU" : " CPUs", " with data (", list,
                     "): their times are the guest's own, not synchronised to the host"));
  }
  return warnings;
}

bool GuestToHostTime(const TimeShiftSamples& samples, bool interpolate, uint64_t raw,
                     uint64_t* host) {
  if (samples.size() == 1)
    return FitsHostTimeRange(static_cast<TimeShiftInt128>(raw) + samples[0].offset, host);
  // The pair of samples around `raw`; before the first or after the last, the first or last
  // two (libtracecmd extrapolates from them). Times are >= 0, so unsigned compares hold.
  size_t first = 0;
  if (raw >= static_cast<uint64_t>(samples.back().time)) {
    first = samples.size() - 2;
  } else if (raw > static_cast<uint64_t>(samples.front().time)) {
    auto after = std::upper_bound(samples.begin(), samples.end(), raw,
                                  [](uint64_t value, const TimeShiftSample& sample) {
                                    return value < static_cast<uint64_t>(sample.time);
                                  });
    first = static_cast<size_t>(after - samples.begin()) - 1;
  }
  const TimeShiftSample& low = samples[first];
  const TimeShiftSample& high = samples[first + 1];
  TimeShiftInt128 correction = low.offset;
  if (interpolate) {
    // low.offset + ((raw - low.time) * (high.offset - low.offset) + delta / 2) / delta, with
    // C's truncating division, as libtracecmd rounds.
    const TimeShiftInt128 delta =
        static_cast<TimeShiftInt128>(high.time) - low.time;  // > 0: times differ
    TimeShiftInt128 product = 0;
    if (!MultiplyTimeShift(static_cast<TimeShiftInt128>(raw) - low.time,
                           static_cast<TimeShiftInt128>(high.offset) - low.offset, &product)) {
      return false;
    }
    if (!AddTimeShift(product, delta / 2, &product) ||
        !AddTimeShift(correction, product / delta, &correction)) {
      return false;
    }
  }
  // raw < 2^64 and scaling < 2^63: the product fits in 127 bits.
  const TimeShiftInt128 scaled =
      (static_cast<TimeShiftInt128>(raw) * low.scaling) >> static_cast<int>(low.fraction);
  TimeShiftInt128 shifted = 0;
  if (!AddTimeShift(scaled, correction, &shifted)) return false;
  return FitsHostTimeRange(shifted, host);
}

}  // namespace napiscope::internal
