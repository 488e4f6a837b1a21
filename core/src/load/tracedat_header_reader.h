// Reads a trace.dat file's header (v6 or v7) into a TraceDatHeader, checked for what
// libtracecmd and libtraceevent would trip over.
#pragma once

#include <cstddef>
#include <string>

#include <absl/status/status.h>

#include "load/tracedat_header.h"

namespace napiscope::internal {

/// True when the first bytes of a file are the trace.dat magic.
bool HasTraceDatMagic(const char* bytes, size_t size);

/// Parses the header of the trace.dat at `path` and checks what libtracecmd would trip over
/// (the page-header format, each CPU's first page); an error says what is wrong in plain words.
/// `buffer` names the instance whose data to read ("": the top buffer, or the only instance
/// with data when the top buffer has none); top_buffer then holds that buffer's extents.
absl::Status ReadTraceDatHeader(const std::string& path, const std::string& buffer,
                                TraceDatHeader* header);

}  // namespace napiscope::internal
