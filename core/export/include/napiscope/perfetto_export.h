// Writing a trace and napiscope's analysis of it as a Perfetto trace (ui.perfetto.dev,
// trace_processor): the events as Perfetto's own ftrace events, the derived facts as tracks.
#pragma once

#include <cstdint>
#include <string>

#include <absl/status/status.h>

#include "napiscope/analysis_pipeline.h"

namespace napiscope {

/// What an export wrote.
struct PerfettoExportStats {
  int64_t ftrace_events = 0;   ///< trace events written as FtraceEvents
  int64_t ftrace_bundles = 0;  ///< FtraceEventBundle packets
  int64_t tracks = 0;          ///< TrackDescriptors
  int64_t slices = 0;          ///< TrackEvent slices (begin + end)
  int64_t instants = 0;        ///< TrackEvent instants (findings)
  int64_t counter_values = 0;  ///< TrackEvent counter values
  int64_t flows = 0;           ///< flow arrows
  int64_t bytes = 0;           ///< size of the file written
};

/// Loads `trace_path`, analyses it as `napiscope report` would (window, CPUs, thresholds and
/// load options from `options`) and streams it to `out_path` ("-": stdout) as a
/// perfetto.protos.Trace. Memory does not grow with the number of events. Errors name the file.
absl::Status ExportPerfettoTrace(const std::string& trace_path, const std::string& out_path,
                                 const AnalysisOptions& options, PerfettoExportStats* stats);

}  // namespace napiscope
