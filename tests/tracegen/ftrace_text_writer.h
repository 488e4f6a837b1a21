// Prints resolved scenario events the way the kernel's tracefs `trace` file does, so the text
// loader can be checked against events whose every field is known.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "tracegen/record_encoder.h"

namespace napiscope::tracegen {

/// Which optional columns and header the text has.
struct FtraceTextStyle {
  bool header = true;         ///< the "# tracer: nop" block with "#P:N"
  bool flags_column = true;   ///< options/irq-info
  bool tgid_column = false;   ///< options/record-tgid (printed as "(-------)" or the pid)
  bool ns_timestamps = true;  ///< 9 fraction digits instead of the kernel's 6
};

/// The irq-info column ("d.h1.") for `flags` in the kernel's legend; preempt depth and
/// migrate-disable are not in Event and print as '.'.
std::string KernelFlagsColumn(uint8_t flags);

/// The fields part of a line as the event's kernel print format prints it.
std::string KernelFields(const Event& event, const StringTable& strings, const CommLookup& comm_of);

/// The whole text for `events` (as Scenario::Resolve returns them).
std::string FtraceText(const std::vector<Event>& events, const StringTable& strings,
                       const CommLookup& comm_of, int cpus, const FtraceTextStyle& style = {});

}  // namespace napiscope::tracegen
