// Ring-buffer data that no CPU of the file's CPU table claims: a damaged table (a CPU count
// too small, a size of 0, a table a killed writer left all zeros) would silently drop its
// events, so it is found and said.
#pragma once

#include <absl/status/status.h>

#include "load/tracedat_header.h"

namespace napiscope::internal {

/// Looks, where CPU data may lie (v6: after the top buffer's CPU table; v7: the buffers'
/// flyrecord sections), for pages (or zstd chunks) that no extent of any buffer covers. Each
/// run of such data is a warning; when the buffer read has no data at all, an error. Not
/// looked for beside a buffer that cannot be read (its own warning says so).
absl::Status CheckDataClaimed(int fd, TraceDatHeader* header);

}  // namespace napiscope::internal
