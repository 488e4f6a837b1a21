// The composition root of one pass over a trace: the one place that builds the analysis
// pipeline and wires the context tracker, the fact producers, the analyses and whatever else
// the caller wants (the timeline, an exporter's tracks, a table's listeners, raw-event sinks),
// in the one right order. Every front end (CLI, GUI, HTML, Perfetto, Python, live) uses it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/analysis_pipeline.h"
#include "napiscope/contexts.h"
#include "napiscope/event_sink.h"
#include "napiscope/facts.h"
#include "napiscope/loader.h"
#include "napiscope/report.h"
#include "napiscope/timeline.h"

namespace napiscope {

/// What to analyse and how to judge it (the pipeline's options), and how to read the trace.
struct AnalysisOptions : PipelineOptions {
  LoadOptions load;  ///< how the loader reads a file source (threads, buffer, progress, name)
};

/// What one pass feeds besides (or instead of) the report's analyses; each is subscribed after
/// the analyses, in the order listed, and must outlive the session.
struct SessionOutputs {
  bool report = true;     ///< run the analyses (Finish); false: the tracker and producers only
  bool timeline = false;  ///< build the GUI's and the HTML report's Timeline (TakeTimeline)
  std::vector<ContextListener*> context_listeners;  ///< the tracker's segments and intervals
  std::vector<FactListener*> fact_listeners;        ///< the producers' facts
  std::vector<EventSink*> sinks;  ///< every event, after the analyses and the timeline
};

/// One pass: an EventSink that feeds, for each event, the context tracker (and its listeners),
/// the fact producers (and theirs), the analyses that read raw kinds, the timeline, then the
/// caller's sinks. Feed it from a loader (Load), a stored event list (the GUI's ranges) or a
/// live capture.
class AnalysisSession : public EventSink {
 public:
  explicit AnalysisSession(const AnalysisOptions& options, const SessionOutputs& outputs = {});
  ~AnalysisSession() override;
  AnalysisSession(const AnalysisSession&) = delete;
  AnalysisSession& operator=(const AnalysisSession&) = delete;

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;

  /// Loads `path` into this session with the options' LoadOptions; errors name the file.
  absl::Status Load(const std::string& path, TraceContext& context);

  /// The report of the events seen so far (outputs.report); changes nothing, so live mode calls
  /// it between events as often as it likes.
  Report Finish(const TraceContext& context) const;

  /// The timeline (outputs.timeline), once, after the events ended. The analyses' state (tens of
  /// MB of duration samples on large traces) is freed first, so packing the lanes does not add
  /// to the pass's peak memory; Finish must not be called afterwards.
  Timeline TakeTimeline();

 private:
  struct Parts;
  AnalysisOptions options_;
  std::unique_ptr<Parts> parts_;
};

/// Loads `path` and analyses it in one pass. Errors name the file and are returned, not printed.
absl::Status AnalyzeTrace(const std::string& path, const AnalysisOptions& options, Report* report);

}  // namespace napiscope
