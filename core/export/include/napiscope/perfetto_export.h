// Writing a trace and napiscope's analysis of it as a Perfetto trace (ui.perfetto.dev,
// trace_processor): the events as Perfetto's own ftrace events, the derived facts as tracks.
#pragma once

#include <cstdint>
#include <string>

#include <absl/status/status.h>

#include "napiscope/analysis_session.h"

namespace napiscope {

/// What an export wrote.
struct PerfettoExportStats {
  int64_t ftrace_events = 0;   ///< trace events written as FtraceEvents
  int64_t ftrace_bundles = 0;  ///< FtraceEventBundle packets
  int64_t tracks = 0;          ///< TrackDescriptors
  int64_t slices = 0;          ///< TrackEvent slices (begin + end)
  int64_t instants = 0;        ///< TrackEvent instants (findings, and the causes flows start at)
  int64_t findings = 0;        ///< findings, each one of the instants
  int64_t counter_values = 0;  ///< TrackEvent counter values
  int64_t flows = 0;           ///< flow arrows
  int64_t bytes = 0;           ///< size of the file written
  TraceSummary trace;          ///< the trace as the report summarises it (span, CPUs, events)
};

/// Loads `trace_path`, analyses it as `napiscope report` would (window, CPUs, thresholds and
/// load options from `options`) and streams it to `out_path` ("-": stdout) as a
/// perfetto.protos.Trace. Memory does not grow with the number of events. Errors name the file.
absl::Status ExportPerfettoTrace(const std::string& trace_path, const std::string& out_path,
                                 const AnalysisOptions& options, PerfettoExportStats* stats);

/// Files larger than this rarely open in ui.perfetto.dev inside a browser: the page gets about
/// 2 GB of memory and Perfetto's tables take 2-4 times the file's size.
inline constexpr int64_t kPerfettoBrowserBytes = int64_t{512} << 20;

/// How to open an exported file of `bytes` at `path`: empty for a file the browser opens, else
/// one line (no newline) saying to open it through a native trace_processor or to export less.
std::string PerfettoOpeningAdvice(const std::string& path, int64_t bytes);

}  // namespace napiscope
