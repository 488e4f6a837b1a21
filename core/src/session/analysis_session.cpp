#include "napiscope/analysis_session.h"

#include "napiscope/producers.h"
#include "napiscope/timeline_builder.h"

namespace napiscope {

// The pipeline owns the tracker and the producers and subscribes every analysis first; the
// timeline and the caller's listeners come after them, so each sees the tracker's and the
// producers' state after the event, as the analyses do. Without a report, the session owns
// the tracker and the producers itself, wired the same way.
struct AnalysisSession::Parts {
  std::unique_ptr<AnalysisPipeline> pipeline;  // outputs.report
  std::unique_ptr<ContextTracker> tracker;     // !outputs.report
  std::unique_ptr<FactProducers> facts;        // !outputs.report
  std::unique_ptr<TimelineBuilder> timeline;   // outputs.timeline
  FanoutSink order;  // the pipeline (or the tracker, then the producers), timeline, sinks

  void Listen(ContextListener* listener) {
    if (pipeline) {
      pipeline->AddContextListener(listener);
    } else {
      tracker->AddListener(listener);
    }
  }
  void Listen(FactListener* listener) {
    if (pipeline) {
      pipeline->AddFactListener(listener);
    } else {
      facts->AddListener(listener);
    }
  }
};

AnalysisSession::AnalysisSession(const AnalysisOptions& options, const SessionOutputs& outputs)
    : options_(options), parts_(std::make_unique<Parts>()) {
  Parts& parts = *parts_;
  if (outputs.report) {
    parts.pipeline = std::make_unique<AnalysisPipeline>(options);
  } else {
    parts.tracker = std::make_unique<ContextTracker>();
    parts.facts = std::make_unique<FactProducers>(parts.tracker.get());
    parts.tracker->AddListener(parts.facts.get());  // first: service threads seen in intervals
  }
  if (outputs.timeline) {
    parts.timeline = std::make_unique<TimelineBuilder>(TimelineFacts::kFromCaller);
    parts.Listen(static_cast<ContextListener*>(parts.timeline.get()));
    parts.Listen(static_cast<FactListener*>(parts.timeline.get()));
  }
  for (ContextListener* listener : outputs.context_listeners) parts.Listen(listener);
  for (FactListener* listener : outputs.fact_listeners) parts.Listen(listener);
  if (parts.pipeline) {
    parts.order.Add(parts.pipeline.get());
  } else {
    parts.order.Add(parts.tracker.get());
    parts.order.Add(parts.facts.get());
  }
  if (parts.timeline) parts.order.Add(parts.timeline.get());
  for (EventSink* sink : outputs.sinks) parts.order.Add(sink);
}

AnalysisSession::~AnalysisSession() = default;

void AnalysisSession::OnBegin(const TraceContext& context) { parts_->order.OnBegin(context); }

void AnalysisSession::OnEvent(const Event& event) { parts_->order.OnEvent(event); }

void AnalysisSession::OnEnd() { parts_->order.OnEnd(); }

absl::Status AnalysisSession::Load(const std::string& path, TraceContext& context) {
  return LoadTrace(path, context, *this, options_.load);
}

Report AnalysisSession::Finish(const TraceContext& context) const {
  return parts_->pipeline ? parts_->pipeline->Finish(context) : Report{};
}

Timeline AnalysisSession::TakeTimeline() {
  parts_->pipeline.reset();
  return parts_->timeline ? parts_->timeline->Finish() : Timeline{};
}

absl::Status AnalyzeTrace(const std::string& path, const AnalysisOptions& options, Report* report) {
  TraceContext context;
  AnalysisSession session(options);
  absl::Status status = session.Load(path, context);
  if (!status.ok()) return status;
  *report = session.Finish(context);
  return absl::OkStatus();
}

}  // namespace napiscope
