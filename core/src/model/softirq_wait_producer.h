// Softirq waits (docs/definitions.md, "Softirq waits"): the per-CPU pending mask, the first
// raise of each vector since it last entered, and its pairing with the next entry.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/fact_bus.h"
#include "model/thread_activation_producer.h"
#include "napiscope/contexts.h"

namespace napiscope::internal {

/// Produces SoftirqRaiseFact, SoftirqWaitFact and dropped raises from raise / entry / missed
/// events. Vectors past 31 are decoding errors, not vectors: ignored. Reads the IRQ each raise
/// came from off the tracker and `threads` (both fed each event before this producer).
class SoftirqWaitProducer {
 public:
  /// The pending mask is a 32-bit word; a vector beyond is a decoding error, not a vector.
  static constexpr uint32_t kMaxVectors = 32;

  SoftirqWaitProducer(const ContextTracker* tracker, const ThreadActivationProducer* threads,
                      const FactBus* bus)
      : tracker_(tracker), threads_(threads), bus_(bus) {}

  /// Feed softirq_raise, softirq_entry and missed-events markers (others are ignored here,
  /// inline, so that the events it does not read cost no call).
  void OnEvent(const Event& event) {
    switch (event.kind) {
      case EventKind::kSoftirqRaise:
        if (event.softirq.vec < kMaxVectors) Raise(event);
        break;
      case EventKind::kSoftirqEntry:
        if (event.softirq.vec < kMaxVectors) Enter(event);
        break;
      case EventKind::kMissedEvents:
        Drop(event);
        break;
      default:
        break;
    }
  }

  /// Vectors pending on `cpu`.
  uint32_t Mask(uint16_t cpu) const { return cpu < cpus_.size() ? cpus_[cpu].mask : 0; }
  /// First raise of `vec` on `cpu` since it last entered (valid while pending).
  TimestampNs FirstRaiseNs(uint16_t cpu, uint32_t vec) const {
    return cpu < cpus_.size() && vec < kMaxVectors ? cpus_[cpu].raised_ns[vec] : 0;
  }

 private:
  struct Cpu {
    uint32_t mask = 0;
    std::array<TimestampNs, kMaxVectors> raised_ns{};
    std::array<IrqSource, kMaxVectors> raised_from{};
  };

  Cpu& CpuOf(uint16_t cpu);
  void Raise(const Event& event);
  void Enter(const Event& event);
  void Drop(const Event& event);

  const ContextTracker* tracker_;
  const ThreadActivationProducer* threads_;
  const FactBus* bus_;
  std::vector<Cpu> cpus_;
};

}  // namespace napiscope::internal
