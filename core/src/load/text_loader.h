// ftrace text loading: the kernel's trace/trace_pipe format and `trace-cmd report` output.
#pragma once

#include <string>

#include <absl/status/status.h>

#include "napiscope/loader.h"

namespace napiscope::internal {

/// True when `head` (the first bytes of a file) looks like ftrace or trace-cmd text.
bool LooksLikeTraceText(std::string_view head, TraceFormat* format);

/// Loads an ftrace text trace into `sink`.
absl::Status LoadTraceText(const std::string& path, TraceContext& context, EventSink& sink,
                           const LoadOptions& options);

}  // namespace napiscope::internal
