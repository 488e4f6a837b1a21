// The v7 trace.dat header: options sections linked one to the next, and the sections they
// point at.
#pragma once

#include <absl/status/status.h>

#include "load/tracedat_bytes.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {

/// Reads a v7 header from `reader` (just after the page size: the compression, then the first
/// options section's offset) and the sections its options name, into `header`.
absl::Status ParseV7(const FileView& file, ByteReader& reader, TraceDatHeader* header);

}  // namespace napiscope::internal
