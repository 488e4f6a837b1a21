// The blocks of a trace.dat header that v6 keeps inline and v7 in sections: the page header
// format, the ftrace and event formats, the saved cmdlines.
#pragma once

#include <absl/status/status.h>

#include "load/tracedat_bytes.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {

/// The ftrace formats block: a count, then the formats.
absl::Status ReadFtraceFormats(ByteReader& reader, TraceDatHeader* header);

/// The event formats block: a count of systems, each a name, a count and the formats.
absl::Status ReadEventFormats(ByteReader& reader, TraceDatHeader* header);

/// The header info block: "header_page", its size, and the page header format text.
absl::Status ReadHeaderPage(ByteReader& reader, TraceDatHeader* header);

/// The saved cmdlines block: its size, then "pid comm" lines.
absl::Status ReadSavedCmdlines(ByteReader& reader, TraceDatHeader* header);

}  // namespace napiscope::internal
