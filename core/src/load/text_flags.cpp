#include "load/text_flags.h"

#include "napiscope/event.h"

namespace napiscope::internal {
namespace {

// Bit 0x02 is TRACE_FLAG_NEED_RESCHED_LAZY since 6.12 (it was IRQS_NOSUPPORT before).
constexpr uint8_t kNeedReschedLazy = 0x02;

bool DecodeIrqsOff(char c, FlagsDialect dialect, uint8_t* flags) {
  switch (c) {
    case '.':
      return true;
    case 'd':
      *flags |= kIrqsOff;
      return true;
    case 'D':  // kernel: irqs off and bottom halves disabled
      *flags |= kIrqsOff | kBhOff;
      return true;
    case 'b':  // kernel: bottom halves disabled
      *flags |= kBhOff;
      return true;
    case 'X':
      // The kernel prints X when it cannot trace irq state (no bit); libtraceevent 1.7 prints
      // it for bit 0x02, which it still calls IRQS_NOSUPPORT.
      if (dialect == FlagsDialect::kTraceCmd) *flags |= kNeedReschedLazy;
      return true;
    default:
      return false;
  }
}

bool DecodeNeedResched(char c, FlagsDialect dialect, uint8_t* flags) {
  if (dialect == FlagsDialect::kTraceCmd) {
    // libtraceevent 1.7 only looks at TIF_NEED_RESCHED.
    if (c == 'N') *flags |= kNeedResched;
    return c == 'N' || c == '.';
  }
  switch (c) {
    case '.':
      return true;
    case 'B':
      *flags |= kNeedResched | kNeedReschedLazy | kPreemptResched;
      return true;
    case 'N':
      *flags |= kNeedResched | kPreemptResched;
      return true;
    case 'L':
      *flags |= kNeedReschedLazy | kPreemptResched;
      return true;
    case 'b':
      *flags |= kNeedResched | kNeedReschedLazy;
      return true;
    case 'n':
      *flags |= kNeedResched;
      return true;
    case 'p':
      *flags |= kPreemptResched;
      return true;
    case 'l':
      *flags |= kNeedReschedLazy;
      return true;
    default:
      return false;
  }
}

bool DecodeHardSoft(char c, uint8_t* flags) {
  switch (c) {
    case '.':
      return true;
    case 'Z':  // NMI inside a hard IRQ
      *flags |= kNmi | kHardirq;
      return true;
    case 'z':
      *flags |= kNmi;
      return true;
    case 'H':  // hard IRQ inside a softirq
      *flags |= kHardirq | kSoftirq;
      return true;
    case 'h':
      *flags |= kHardirq;
      return true;
    case 's':
      *flags |= kSoftirq;
      return true;
    default:
      return false;
  }
}

bool IsLegendChar(char c) {
  switch (c) {
    case '.':
    case 'd':
    case 'D':
    case 'b':
    case 'X':
    case 'B':
    case 'N':
    case 'L':
    case 'n':
    case 'p':
    case 'l':
    case 'Z':
    case 'z':
    case 'H':
    case 'h':
    case 's':
      return true;
    default:
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }
}

}  // namespace

uint8_t RepresentableFlags(FlagsDialect dialect) {
  if (dialect == FlagsDialect::kKernel) return 0xff;
  // 'X' hides 0x02 whenever irqs are off, so 0x02 is not reliably shown either.
  return kIrqsOff | kNeedResched | kHardirq | kSoftirq;
}

bool LooksLikeFlagsColumn(std::string_view column) {
  if (column.size() < 3 || column.size() > 6) return false;
  for (char c : column) {
    if (!IsLegendChar(c)) return false;
  }
  // The irqs-off character is never a digit; a leading digit is a CPU number.
  return !(column[0] >= '0' && column[0] <= '9');
}

bool DecodeFlagsColumn(std::string_view column, FlagsDialect dialect, uint8_t* flags) {
  if (column.size() < 3) return false;
  uint8_t value = 0;
  if (!DecodeIrqsOff(column[0], dialect, &value) ||
      !DecodeNeedResched(column[1], dialect, &value) || !DecodeHardSoft(column[2], &value)) {
    return false;
  }
  *flags = value;
  return true;
}

}  // namespace napiscope::internal
