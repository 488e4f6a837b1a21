// Everything the GUI shows about one trace, built in one pass over the file off the GUI thread.
#pragma once

#include <string>

#include <absl/status/status.h>

#include "napiscope/event_sink.h"
#include "napiscope/loader.h"
#include "napiscope/timeline.h"
#include "napiscope/trace_summary.h"

namespace napiscope::gui {

/// A loaded trace: the context (strings, tasks), the timeline model and the summary.
/// Immutable once loaded; shared between views.
struct LoadedTrace {
  std::string path;
  TraceContext context;
  Timeline timeline;
  TraceSummary summary;
};

/// Loads `path` into `trace` with one pass: context tracker, timeline builder and summary.
/// Blocking; errors are the loader's ("PATH: what is wrong"), exactly as the CLI prints them.
absl::Status LoadTraceForView(const std::string& path, const LoadOptions& options,
                              LoadedTrace* trace);

}  // namespace napiscope::gui
