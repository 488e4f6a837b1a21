// The irq-info column of ftrace text ("d.h1.", "dNs2.") decoded to common_flags bits, in one place.
#pragma once

#include <cstdint>
#include <string_view>

namespace napiscope::internal {

/// Who printed the column: the letters mean slightly different bits in each.
enum class FlagsDialect : uint8_t {
  /// The kernel's trace/trace_pipe (kernel/trace/trace_output.c, 6.x legend).
  kKernel,
  /// `trace-cmd report -l` (libtraceevent 1.7: 'N' is need-resched only, 'X' is bit 0x02).
  kTraceCmd,
};

/// The common_flags bits a column of `dialect` can show; the others always read as 0.
uint8_t RepresentableFlags(FlagsDialect dialect);

/// True when `column` has the shape of an irq-info column (3 to 6 legend characters).
bool LooksLikeFlagsColumn(std::string_view column);

/// Decodes the first three characters of `column` (irqs-off, need-resched, hardirq/softirq)
/// into common_flags bits; the preempt-depth and migrate-disable digits after them are not
/// flags. False when a character is not in the legend.
bool DecodeFlagsColumn(std::string_view column, FlagsDialect dialect, uint8_t* flags);

}  // namespace napiscope::internal
