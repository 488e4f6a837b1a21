// One napiscope Event as the bytes of a Perfetto FtraceEvent (perfetto_trace.proto), written
// without building a message object: the export's hot path.
#pragma once

#include <cstdint>

#include "napiscope/event_sink.h"
#include "napiscope/string_table.h"
#include "proto_writer.h"

namespace napiscope::perfetto_export {

/// Appends the fields of `event` as an FtraceEvent to `out` (the message's body: the caller
/// frames it): Perfetto's own message where it has one for the event, else a GenericFtraceEvent
/// with the event's name and the fields napiscope decoded. The bytes equal the generated
/// classes' serialization.
void EncodeFtraceEvent(const Event& event, const StringTable& strings, ProtoWriter* out);

/// The same framed: appends field `field` (FtraceEventBundle.event) holding the FtraceEvent.
/// Each event costs one bounds check in `out`, not one per field.
void EncodeFtraceEventField(uint32_t field, const Event& event, const StringTable& strings,
                            ProtoWriter* out);

}  // namespace napiscope::perfetto_export
