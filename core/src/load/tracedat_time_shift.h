// The TIME_SHIFT option of a guest's trace.dat (trace-cmd's guest/host time synchronisation):
// per guest CPU, samples of the guest clock against the host's, read with every count and
// size checked, and the correction libtracecmd applies to each raw timestamp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <absl/status/status.h>

namespace napiscope::internal {

/// One sample of a guest CPU's clock against its host's: from guest time `time` on, host
/// time = (guest * scaling >> fraction) + offset (offset interpolated to the next sample
/// when the option's flags say so).
struct TimeShiftSample {
  int64_t time = 0;      ///< guest raw timestamp of the sample, >= 0
  int64_t offset = 0;    ///< host minus scaled guest time at `time`
  int64_t scaling = 1;   ///< multiplier of the guest time, >= 1
  int64_t fraction = 0;  ///< right shift after scaling (fixed-point bits), 0..63
};

/// The samples of one guest CPU, sorted by time, no two with the same time.
using TimeShiftSamples = std::vector<TimeShiftSample>;

/// trace-cmd's TRACECMD_TSYNC_FLAG_INTERPOLATE: offsets between samples are interpolated.
constexpr uint32_t kTimeShiftInterpolate = 1;

/// A TIME_SHIFT option as napiscope's reader applies it.
struct GuestTimeShift {
  bool present = false;        ///< the file has a TIME_SHIFT option
  uint64_t host_trace_id = 0;  ///< the host trace this guest trace is synchronised to
  uint32_t flags = 0;          ///< kTimeShiftInterpolate and protocol bits
  /// Samples per guest CPU (index = CPU id); a CPU past the end or with none is not shifted.
  std::vector<std::shared_ptr<const TimeShiftSamples>> cpus;
  /// True when offsets between samples are interpolated.
  bool interpolate() const { return (flags & kTimeShiftInterpolate) != 0; }
};

/// Parses a TIME_SHIFT option's `size` bytes at `data` (trace id, flags, CPU count, per CPU a
/// sample count and arrays of times, offsets and scalings, then optionally per CPU the
/// fractions), in the file's byte order. Counts the bytes cannot hold, negative times, a
/// scaling below 1 or a fraction past 63 are errors; memory never exceeds what `size` holds.
absl::Status ParseTimeShiftOption(const uint8_t* data, size_t size, bool big_endian,
                                  GuestTimeShift* shift);

/// Warnings for a TIME_SHIFT option whose CPUs do not match the trace's: `cpus_with_data`
/// are the CPUs that have ring-buffer data, `trace_cpus` the trace's CPU count.
std::vector<std::string> TimeShiftCpuWarnings(const GuestTimeShift& shift,
                                              const std::vector<int>& cpus_with_data,
                                              int trace_cpus);

/// The host time of guest raw timestamp `raw` on a CPU with `samples` (non-empty), as
/// libtracecmd's timestamp_host_sync computes it but in exact 128-bit arithmetic: false when
/// the result falls outside 0..2^64-1 (an impossible time).
bool GuestToHostTime(const TimeShiftSamples& samples, bool interpolate, uint64_t raw,
                     uint64_t* host);

}  // namespace napiscope::internal
