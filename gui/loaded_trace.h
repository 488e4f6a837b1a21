// Everything the GUI shows about one trace, built in one pass over the file off the GUI thread.
#pragma once

#include <string>
#include <vector>

#include <absl/status/status.h>

#include "event_index.h"
#include "napiscope/event_sink.h"
#include "napiscope/loader.h"
#include "napiscope/report.h"
#include "napiscope/timeline.h"

namespace napiscope::gui {

/// A loaded trace: the context (strings, tasks), the timeline model and the report (summary,
/// analyses, findings) exactly as `napiscope report` computes it. Immutable once loaded.
struct LoadedTrace {
  std::string path;
  TraceContext context;
  Timeline timeline;
  Report report;
  EventIndex events;  ///< every event, compactly, for the event list
  /// The CPUs with events or lost-event gaps, ascending (every CPU when none has any): the
  /// CPUs shown at load. A trace recorded on some CPUs of a large machine lists them all.
  std::vector<int> active_cpus;

  /// How many CPUs have no events (those not in active_cpus).
  int CpusWithoutEvents() const { return timeline.cpus() - static_cast<int>(active_cpus.size()); }
};

/// Loads `path` into `trace` in one pass: context tracker and timeline builder, the analysis
/// pipeline with default thresholds, and the event index.
/// Blocking; errors are the loader's ("PATH: what is wrong"), exactly as the CLI prints them.
absl::Status LoadTraceForView(const std::string& path, const LoadOptions& options,
                              LoadedTrace* trace);

}  // namespace napiscope::gui
