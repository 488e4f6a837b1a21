// The v6 trace.dat header: size-prefixed blocks up to the flyrecord CPU table, options inline.
#pragma once

#include <cstdint>

#include <absl/status/status.h>

#include "load/tracedat_bytes.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {

/// Reads a v6 header from byte `start` (after the page size) to the flyrecord CPU table.
absl::Status ParseV6(const FileView& file, uint64_t start, TraceDatHeader* header);

/// The CPU table of each v6 buffer instance: at the offset its BUFFER option gives, a
/// flyrecord label and an (offset, size) pair per CPU of the file, as for the top buffer. A
/// table that does not read makes that buffer unreadable (its status), not the file.
absl::Status ReadV6Buffers(const FileView& file, TraceDatHeader* header);

}  // namespace napiscope::internal
