// The IRQ that a softirq raise or a wakeup comes from (docs/definitions.md, "IRQ source").
#pragma once

#include <cstdint>

#include "model/thread_activation_producer.h"
#include "napiscope/contexts.h"
#include "napiscope/facts.h"

namespace napiscope::internal {

/// The IRQ that work raised or woken on `cpu` now comes from, read from the tracker's top frame
/// (fed the current event already): a traced hard IRQ handler, else the IRQ of the IRQ thread
/// current there (`threads` knows which IRQ each serves). Unknown without a tracker.
IrqSource IrqSourceAt(const ContextTracker* tracker, const ThreadActivationProducer& threads,
                      uint16_t cpu);

}  // namespace napiscope::internal
