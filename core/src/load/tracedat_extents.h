// Checks that a trace.dat's CPU extents back what its header claims, so memory follows what
// the file holds: CPUs apart, pages no larger than the data, chunk buffers bounded, CPU
// counts far past the data clamped, and data that no CPU claims reported.
#pragma once

#include <absl/status/status.h>

#include "load/tracedat_header.h"

namespace napiscope::internal {

/// Checks the extents of `header` (read from the open file `fd`) against its claims: an error
/// for overlapping extents, a CPU with less than one page of uncompressed data, compressed
/// data past the end of the file or chunk buffers past kMaxChunkBufferBytes; a warning (and
/// a clamp) for a CPU count far past the last CPU with data, and for ring-buffer data that
/// follows a CPU of size 0 and belongs to no CPU.
absl::Status CheckExtentsBackClaims(int fd, TraceDatHeader* header);

}  // namespace napiscope::internal
