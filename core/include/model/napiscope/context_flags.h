// What an event's common_flags say about the context it was recorded in. The one place that
// decides which bit means what (docs/contexts.md lists the bits per kernel version).
#pragma once

#include <cstdint>

#include "napiscope/event.h"

namespace napiscope {

/// True when the event was recorded in hard-IRQ context (bit 0x08, the same on every kernel
/// since 2.6.x). NMIs also set it; callers that must tell them apart check InNmi first.
constexpr bool InHardirq(uint8_t flags) { return (flags & kHardirq) != 0; }

/// True when the event was recorded while a softirq was being served (bit 0x10). Kernels up to
/// 2.6.3x set it whenever bottom halves were disabled too; since then only while serving.
constexpr bool InServingSoftirq(uint8_t flags) { return (flags & kSoftirq) != 0; }

/// True when the event was recorded in an NMI (bit 0x40, kernels 3.x and later).
constexpr bool InNmi(uint8_t flags) { return (flags & kNmi) != 0; }

/// True when the flags carry any context bit at all; text without the irq-info column and
/// hand-made events carry none, and then nothing may be inferred from their absence.
constexpr bool FlagsCarryContext(uint8_t flags) { return flags != 0; }

}  // namespace napiscope
