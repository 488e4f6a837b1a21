#include "loaded_trace.h"

#include "napiscope/analysis_pipeline.h"
#include "napiscope/contexts.h"
#include "napiscope/timeline_builder.h"

namespace napiscope::gui {

absl::Status LoadTraceForView(const std::string& path, const LoadOptions& options,
                              LoadedTrace* trace) {
  trace->path = path;
  ContextTracker tracker;
  TimelineBuilder timeline;
  AnalysisPipeline analyses{AnalysisOptions{}};
  tracker.AddListener(&timeline);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&timeline);
  fanout.Add(&analyses);
  fanout.Add(&trace->events);
  absl::Status status = LoadTrace(path, trace->context, fanout, options);
  if (!status.ok()) return status;
  trace->timeline = timeline.Finish();
  trace->report = analyses.Finish(trace->context);
  return absl::OkStatus();
}

}  // namespace napiscope::gui
