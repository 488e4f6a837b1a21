#include "model/irq_source.h"

namespace napiscope::internal {

// A hard IRQ known only from common_flags has no number: whatever it raised is of no known IRQ,
// even when it interrupted an IRQ thread.
IrqSource IrqSourceAt(const ContextTracker* tracker, const ThreadActivationProducer& threads,
                      uint16_t cpu) {
  IrqSource source;
  if (tracker == nullptr) return source;
  const ContextFrame& top = tracker->Top(cpu);
  if (top.kind == ContextKind::kHardirq) {
    if (top.irq.known() && !top.inferred) {
      source.irq = top.irq;
      source.in_hardirq = true;
    }
    return source;
  }
  if (top.task_class != TaskClass::kIrqThread) return source;
  if (const ServiceThread* thread = threads.Find(top.pid)) source.irq = {thread->irq, false};
  return source;
}

}  // namespace napiscope::internal
