// Runs every analysis over one pass of a trace and fills a Report.
#pragma once

#include <memory>
#include <string>
#include <vector>


#include "napiscope/contexts.h"
#include "napiscope/event_sink.h"
#include "napiscope/facts.h"
#include "napiscope/report.h"
#include "napiscope/thresholds.h"

namespace napiscope {

/// What to analyse and how to judge it (AnalysisOptions, in the session layer, adds how the
/// trace is read).
struct PipelineOptions {
  AnalysisWindow window;  ///< events outside still update state; only what begins inside counts
  std::vector<int> cpus;  ///< restrict rows and findings to these CPUs; empty: all
  Thresholds thresholds;
  /// Episodes listed in full per kind (ksoftirqd_blocked, idle_with_pending, ordering stalls);
  /// later ones are only counted (*_not_listed). The CLI's reports keep 1000.
  size_t max_listed_rows = 1000;
};

/// An EventSink that feeds the context tracker and every analysis as events stream in;
/// memory is bounded by CPUs, tasks, IRQs and findings, not by the number of events. Product
/// code builds it only through AnalysisSession (the session layer), which wires the rest.
class AnalysisPipeline : public EventSink {
 public:
  explicit AnalysisPipeline(const PipelineOptions& options);
  ~AnalysisPipeline() override;

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;

  /// Adds a listener to the pipeline's context tracker (before OnBegin); it must outlive the
  /// pipeline. Exporters read the tracker's intervals here instead of tracking contexts again.
  void AddContextListener(ContextListener* listener);

  /// Adds a listener to the pipeline's fact producers (before OnBegin); it must outlive the
  /// pipeline. Exporters read softirq waits, activations and wake waits here.
  void AddFactListener(FactListener* listener);

  /// Builds the report from the events seen so far, with the context the events used; it
  /// changes nothing, so live mode calls it between events as often as it likes.
  Report Finish(const TraceContext& context) const;

 private:
  struct Parts;
  PipelineOptions options_;
  std::unique_ptr<Parts> parts_;
};

}  // namespace napiscope
