#include "loaded_trace.h"

#include "napiscope/analysis_pipeline.h"
#include "napiscope/producers.h"
#include "napiscope/timeline_builder.h"

namespace napiscope::gui {

absl::Status LoadTraceForView(const std::string& path, const LoadOptions& options,
                              LoadedTrace* trace) {
  trace->path = path;
  AnalysisPipeline analyses{AnalysisOptions{}};
  // The timeline listens to the pipeline's context tracker and fact producers instead of
  // running its own copies of them: one tracker and one set of producers for the whole load.
  // The builder's constructor subscribes it to producers that are never fed (so it makes none
  // of its own); the pipeline's producers feed it.
  FactProducers unfed_facts;
  TimelineBuilder timeline(&unfed_facts);
  analyses.AddContextListener(&timeline);
  analyses.AddFactListener(&timeline);
  FanoutSink fanout;
  fanout.Add(&analyses);
  fanout.Add(&timeline);
  fanout.Add(&trace->events);
  absl::Status status = LoadTrace(path, trace->context, fanout, options);
  if (!status.ok()) return status;
  trace->timeline = timeline.Finish();
  trace->report = analyses.Finish(trace->context);
  return absl::OkStatus();
}

}  // namespace napiscope::gui
