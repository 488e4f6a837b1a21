// The options of a trace.dat header (v6 inline, v7 in options sections), read into the
// header's facts.
#pragma once

#include <cstdint>

#include <absl/status/status.h>

#include "load/tracedat_bytes.h"
#include "load/tracedat_header.h"
#include "load/tracedat_option_ids.h"

namespace napiscope::internal {

/// Reads the options in `reader` (one layout in v6, inline, and v7, inside an options section)
/// into `header`; `next_section` is the offset of the next options section (v7), 0 when none.
absl::Status ParseOptions(ByteReader& reader, int version, TraceDatHeader* header,
                          uint64_t* next_section);

}  // namespace napiscope::internal
