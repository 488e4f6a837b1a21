#include "loaded_trace.h"

#include "napiscope/analysis_session.h"

namespace napiscope::gui {

absl::Status LoadTraceForView(const std::string& path, const LoadOptions& options,
                              LoadedTrace* trace) {
  trace->path = path;
  // One tracker and one set of producers for the whole load: the timeline and the event index
  // come from the same pass as the report.
  AnalysisOptions analysis;
  analysis.load = options;
  SessionOutputs outputs;
  outputs.timeline = true;
  outputs.sinks = {&trace->events};
  AnalysisSession session(analysis, outputs);
  absl::Status status = session.Load(path, trace->context);
  if (!status.ok()) return status;
  trace->report = session.Finish(trace->context);
  trace->timeline = session.TakeTimeline();
  trace->active_cpus = trace->report.trace.CpusWithEvents();
  if (trace->active_cpus.empty()) {
    for (int cpu = 0; cpu < trace->timeline.cpus(); ++cpu) trace->active_cpus.push_back(cpu);
  }
  return absl::OkStatus();
}

}  // namespace napiscope::gui
