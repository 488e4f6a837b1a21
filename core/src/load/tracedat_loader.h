// trace.dat loading through libtracecmd: per-CPU record streams merged by a min-heap.
#pragma once

#include <string>

#include <absl/status/status.h>

#include "napiscope/loader.h"

namespace napiscope::internal {

/// Loads a trace.dat file (v6 or v7, compressed or not) into `sink`.
absl::Status LoadTraceDat(const std::string& path, TraceContext& context, EventSink& sink,
                          const LoadOptions& options);

}  // namespace napiscope::internal
