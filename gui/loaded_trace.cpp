#include "loaded_trace.h"

#include <memory>

#include "napiscope/analysis_session.h"
#include "napiscope/timeline_builder.h"

namespace napiscope::gui {

absl::Status LoadTraceForView(const std::string& path, const LoadOptions& options,
                              LoadedTrace* trace) {
  trace->path = path;
  auto analyses = std::make_unique<AnalysisPipeline>(AnalysisOptions{});
  // The timeline listens to the pipeline's context tracker and fact producers instead of
  // running its own copies of them: one tracker and one set of producers for the whole load.
  TimelineBuilder timeline(TimelineFacts::kFromCaller);
  analyses->AddContextListener(&timeline);
  analyses->AddFactListener(&timeline);
  FanoutSink fanout;
  fanout.Add(analyses.get());
  fanout.Add(&timeline);
  fanout.Add(&trace->events);
  absl::Status status = LoadTrace(path, trace->context, fanout, options);
  if (!status.ok()) return status;
  trace->report = analyses->Finish(trace->context);
  // The analyses' state (their duration samples are tens of MB on large traces) is freed before
  // the timeline packs its lanes, so packing does not add to the load's peak memory.
  analyses.reset();
  trace->timeline = timeline.Finish();
  trace->active_cpus = trace->report.trace.CpusWithEvents();
  if (trace->active_cpus.empty()) {
    for (int cpu = 0; cpu < trace->timeline.cpus(); ++cpu) trace->active_cpus.push_back(cpu);
  }
  return absl::OkStatus();
}

}  // namespace napiscope::gui
