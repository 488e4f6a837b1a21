// The per-CPU softirq pending set as the trace shows it: a raise sets the vector's bit, its
// entry clears it, lost events clear everything (what was pending then is unknown).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "napiscope/event.h"

namespace napiscope::internal {

/// Tracks raised-but-not-entered vectors per CPU and when each was first raised.
class SoftirqPending {
 public:
  /// Applies raise / entry / missed-events events; returns true when `event` newly set a bit.
  bool Apply(const Event& event) {
    if (event.cpu >= cpus_.size()) cpus_.resize(event.cpu + 1);
    Cpu& cpu = cpus_[event.cpu];
    switch (event.kind) {
      case EventKind::kSoftirqRaise: {
        uint32_t vec = event.softirq.vec;
        if (vec >= 32 || (cpu.mask & (1u << vec))) return false;
        cpu.mask |= 1u << vec;
        cpu.raised_ns[vec] = event.ts_ns;
        return true;
      }
      case EventKind::kSoftirqEntry:
        if (event.softirq.vec < 32) cpu.mask &= ~(1u << event.softirq.vec);
        return false;
      case EventKind::kMissedEvents:
        cpu.mask = 0;
        return false;
      default:
        return false;
    }
  }

  /// Vectors pending on `cpu` (bit = 1 << vec).
  uint32_t Mask(uint16_t cpu) const { return cpu < cpus_.size() ? cpus_[cpu].mask : 0; }

  /// When `vec` was first raised on `cpu` since it last entered (valid while pending).
  TimestampNs RaisedAt(uint16_t cpu, uint32_t vec) const {
    return cpu < cpus_.size() && vec < 32 ? cpus_[cpu].raised_ns[vec] : 0;
  }

 private:
  struct Cpu {
    uint32_t mask = 0;
    std::array<TimestampNs, 32> raised_ns{};
  };
  std::vector<Cpu> cpus_;
};

}  // namespace napiscope::internal
