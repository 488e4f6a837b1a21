// A large, regular trace written straight to disk, one CPU at a time, for load benchmarks:
// nothing is kept in memory besides one page, so millions of events cost seconds.
#pragma once

#include <cstdint>
#include <string>

#include <absl/status/status.h>

#include "tracegen/tracedat_writer.h"

namespace napiscope::tracegen {

/// Size and shape of the synthetic trace.
struct SyntheticOptions {
  int64_t events = 1'000'000;  ///< total, spread evenly over the CPUs
  int cpus = 4;
  /// Every this many cycles a CPU idles for 200 ms (beyond 27 bits: a time-extend record).
  int idle_gap_every = 5000;
};

/// The events of one cycle on each CPU: hard IRQ -> NET_RX softirq with NAPI poll and a
/// received packet -> wakeup -> switch to the worker and back to idle.
constexpr int kSyntheticCycleEvents = 11;

/// Writes the synthetic trace to `path`; `stats` (optional) says what was written. Each CPU
/// also loses events once, half way through its data.
absl::Status WriteSyntheticTrace(const std::string& path, const SyntheticOptions& options,
                                 TraceDatWriterStats* stats = nullptr);

}  // namespace napiscope::tracegen
