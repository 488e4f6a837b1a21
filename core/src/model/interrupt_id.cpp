#include "napiscope/interrupt_id.h"

#include <fmt/format.h>

namespace napiscope {

InterruptId InterruptOf(const Event& event) {
  bool vector = event.kind == EventKind::kIrqVectorEntry || event.kind == EventKind::kIrqVectorExit;
  return {event.irq.irq, vector};
}

std::string InterruptLabel(InterruptId irq, std::string_view device_word) {
  std::string_view kind = InterruptKindName(irq.x86_vector, device_word);
  return kind.empty() ? std::to_string(irq.number) : fmt::format("{} {}", kind, irq.number);
}

}  // namespace napiscope
