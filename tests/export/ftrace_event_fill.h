// One napiscope Event as a Perfetto FtraceEvent through the generated message classes: the
// reference the export's direct encoding (ftrace_event_encode.h) is tested against.
#pragma once

#include "napiscope/event_sink.h"
#include "perfetto_trace.pb.h"

namespace napiscope::perfetto_export {

/// Fills `out` from `event`: Perfetto's own message where it has one for the event, else a
/// GenericFtraceEvent with the event's name and the fields napiscope decoded.
void FillFtraceEvent(const Event& event, const StringTable& strings,
                     perfetto::protos::FtraceEvent* out);

}  // namespace napiscope::perfetto_export
