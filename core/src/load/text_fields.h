// Turns the printed fields of an event line ("vec=3 [action=NET_RX]") into Event fields.
#pragma once

#include <string_view>

#include "napiscope/event.h"
#include "napiscope/string_table.h"

namespace napiscope::internal {

/// Fills the kind-specific fields of `event` (event->kind is set) from `fields` as the kernel's
/// print format or trace-cmd's sched plugin printed them; strings are interned into `strings`.
/// False when the text does not have the fields of the kind. kOther always succeeds.
bool ParseEventFields(std::string_view fields, StringTable& strings, Event* event);

}  // namespace napiscope::internal
