// Stretches in which a CPU recorded no event at all: inside a wait, they tell "a section with
// interrupts or preemption disabled" from "the vCPU did not run" only with steal time or the
// host's trace, and a sentence must say so (docs/definitions.md, "Silent stretches").
#pragma once

#include <cstdint>
#include <vector>

#include "napiscope/event_sink.h"

namespace napiscope::internal {

/// Reads every event (the pipeline feeds it each one) and keeps, per CPU, the stretches of at
/// least kMinSilentNs between two consecutive events of that CPU (a lost-events marker ends a
/// stretch without making one: events were lost there, not absent).
class CpuSilence : public EventSink {
 public:
  /// The shortest stretch kept.
  static constexpr int64_t kMinSilentNs = 1'000'000;

  void OnEvent(const Event& event) override;

  /// The longest silent stretch of `cpu` inside [from_ns, to_ns) (the part inside), 0 if none.
  int64_t LongestWithin(int cpu, TimestampNs from_ns, TimestampNs to_ns) const;
  /// True when `cpu` recorded any x86 interrupt vector (the timer tick among them).
  bool RecordedVectors(int cpu) const;

 private:
  struct Stretch {
    TimestampNs from_ns;
    TimestampNs to_ns;
  };
  struct CpuState {
    TimestampNs last_ns = -1;  // the CPU's previous event (-1: none, or a lost-events marker)
    bool vectors = false;
    std::vector<Stretch> stretches;  // in time order
  };
  static constexpr size_t kMaxStretches = 1 << 16;  // per CPU
  std::vector<CpuState> cpus_;
};

}  // namespace napiscope::internal
