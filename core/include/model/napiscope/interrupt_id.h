// A hard interrupt's identity and its name in every view. Device IRQs and x86 vectors are two
// number spaces (docs/definitions.md, "IRQ source").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "napiscope/event.h"

namespace napiscope {

/// A hard interrupt: its number and the number space it is in. Device IRQs (irq_handler_entry)
/// and x86 vectors (irq_vectors:*) are numbered apart: a NIC queue's IRQ 236 and the local
/// timer's vector 236 are two interrupts, and compare unequal.
struct InterruptId {
  int32_t number = -1;      ///< the device IRQ's number, or the vector's; -1 none (or untraced)
  bool x86_vector = false;  ///< `number` is an x86 vector's, not a device IRQ's

  /// True when a number is known.
  bool known() const { return number >= 0; }
  /// Ordered by number, then a device IRQ before the x86 vector of the same number.
  auto operator<=>(const InterruptId&) const = default;
  /// Hashes the two fields (absl containers).
  template <typename H>
  friend H AbslHashValue(H hash, const InterruptId& id) {
    return H::combine(std::move(hash), id.number, id.x86_vector);
  }
};

/// The interrupt of an irq_handler_entry/exit or irq_vectors:*_entry/exit event.
InterruptId InterruptOf(const Event& event);

/// What kind of interrupt a number is, as every view says it: "x86 vector" for an x86 vector's
/// number (irq_vectors:*, a number space of its own), else `device_word` ("IRQ", "hard IRQ").
constexpr std::string_view InterruptKindName(bool x86_vector, std::string_view device_word) {
  return x86_vector ? "x86 vector" : device_word;
}

/// An interrupt named with its number: "IRQ 41" (or `device_word` 41; the bare "41" when
/// `device_word` is empty), "x86 vector 251".
std::string InterruptLabel(InterruptId irq, std::string_view device_word = "IRQ");

}  // namespace napiscope
