// One napiscope Event as the bytes of a Perfetto FtraceEvent (perfetto_trace.proto), written
// without building a message object: the export's hot path.
#pragma once

#include "napiscope/event_sink.h"
#include "proto_buffer.h"

namespace napiscope::perfetto_export {

/// Scratch buffers reused from event to event.
struct FtraceEncodeScratch {
  ProtoBuffer event;
  ProtoBuffer payload;
  ProtoBuffer field;
};

/// Encodes `event` as an FtraceEvent into `scratch->event` (cleared first): Perfetto's own
/// message where it has one for the event, else a GenericFtraceEvent with the event's name and
/// the fields napiscope decoded. The bytes equal the generated classes' serialization.
void EncodeFtraceEvent(const Event& event, const StringTable& strings,
                       FtraceEncodeScratch* scratch);

}  // namespace napiscope::perfetto_export
