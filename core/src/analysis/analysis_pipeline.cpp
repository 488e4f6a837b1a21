#include "napiscope/analysis_pipeline.h"

#include <algorithm>
#include <array>

#include "analysis/context_runtime.h"
#include "analysis/cpu_silence.h"
#include "analysis/cpu_time.h"
#include "analysis/finding_rules.h"
#include "analysis/idle_pending.h"
#include "analysis/kernel_model.h"
#include "analysis/ksoftirqd_blocked.h"
#include "analysis/lost_events_findings.h"
#include "analysis/napi_polls.h"
#include "analysis/napi_rt_findings.h"
#include "analysis/net_path_priorities.h"
#include "analysis/scheduling_findings.h"
#include "analysis/softirq_latency.h"
#include "analysis/softirq_thread_starved.h"
#include "analysis/thread_activity.h"
#include "analysis/wake_latency.h"
#include "napiscope/analysis_descriptor.h"
#include "napiscope/analysis_requirements.h"
#include "napiscope/contexts.h"
#include "napiscope/producers.h"

namespace napiscope {

// Each event goes to the tracker first, then the fact producers, then the analyses that read
// its kind, so analyses that read their state at an event see the state after that event. Listeners are
// called in the order added: the producers before the analyses that read service threads.
struct AnalysisPipeline::Parts {
  explicit Parts(const PipelineOptions& options)
      : facts(&tracker),
        softirq_latency(options.window),
        runtime(options.window),
        cpu_time(options.window),
        threads(&facts, options.window),
        ksoftirqd_blocked(&tracker, &facts, options.window, options.max_listed_rows),
        idle_pending(&tracker, &facts, options.window, options.thresholds.ordering_stall_ns,
                     options.max_listed_rows, &softirq_latency),
        napi(options.window),
        wake_latency(&tracker, options.window),
        net_path(&tracker, options.window),
        starved(options.window) {
    tracker.AddListener(&facts);
    tracker.AddListener(&softirq_latency);
    tracker.AddListener(&runtime);
    tracker.AddListener(&cpu_time);
    tracker.AddListener(&threads);
    tracker.AddListener(&napi);
    tracker.AddListener(&wake_latency);
    tracker.AddListener(&net_path);
    tracker.AddListener(&starved);
    facts.AddListener(&softirq_latency);
    facts.AddListener(&threads);
    facts.AddListener(&ksoftirqd_blocked);
    facts.AddListener(&idle_pending);
    facts.AddListener(&wake_latency);
    facts.AddListener(&net_path);
    facts.AddListener(&starved);
    Route(AnalysisId::kIrqThreadPingpong, &threads);
    Route(AnalysisId::kKsoftirqdBlocked, &ksoftirqd_blocked);
    Route(AnalysisId::kIdleWithPending, &idle_pending);
    Route(AnalysisId::kNapi, &napi);
    Route(AnalysisId::kNetPath, &net_path);
  }

  // Sends `analysis` the raw kinds its descriptor says it reads, and its begin and end.
  void Route(AnalysisId id, EventSink* analysis) {
    sinks.push_back(analysis);
    EventKindMask reads = DescriptorOf(id).reads;
    for (size_t kind = 0; kind < routes.size(); ++kind) {
      if (reads & (EventKindMask{1} << kind)) routes[kind].push_back(analysis);
    }
  }

  TraceSummaryBuilder summary;
  ContextTracker tracker;
  FactProducers facts;
  internal::SoftirqLatency softirq_latency;
  internal::ContextRuntime runtime;
  internal::CpuTime cpu_time;
  internal::ThreadActivity threads;
  internal::KsoftirqdBlocked ksoftirqd_blocked;
  internal::IdlePending idle_pending;
  internal::NapiPolls napi;
  internal::WakeLatency wake_latency;
  internal::NetPathPriorities net_path;
  internal::SoftirqThreadStarved starved;
  internal::CpuSilence silence;  // every event: stretches of a CPU without any
  std::vector<EventSink*> sinks;  // the routed analyses, for begin and end
  std::array<std::vector<EventSink*>, static_cast<size_t>(EventKind::kCount)> routes;  // by kind
  TimestampNs last_ts_ns = 0;  // the latest event, lost-events markers included
};

AnalysisPipeline::AnalysisPipeline(const PipelineOptions& options)
    : options_(options), parts_(std::make_unique<Parts>(options)) {}

AnalysisPipeline::~AnalysisPipeline() = default;

void AnalysisPipeline::OnBegin(const TraceContext& context) {
  Parts& parts = *parts_;
  parts.summary.OnBegin(context);
  parts.tracker.OnBegin(context);
  parts.facts.OnBegin(context);
  for (EventSink* sink : parts.sinks) sink->OnBegin(context);
}

// Every event reaches the summary, the tracker and the fact producers; an analysis gets only
// the kinds its descriptor reads.
void AnalysisPipeline::OnEvent(const Event& event) {
  Parts& parts = *parts_;
  parts.last_ts_ns = std::max(parts.last_ts_ns, event.ts_ns);
  parts.summary.OnEvent(event);
  parts.tracker.OnEvent(event);
  parts.facts.OnEvent(event);
  parts.silence.OnEvent(event);
  size_t kind = static_cast<size_t>(event.kind);
  if (kind >= parts.routes.size()) return;
  for (EventSink* sink : parts.routes[kind]) sink->OnEvent(event);
}

void AnalysisPipeline::OnEnd() {
  Parts& parts = *parts_;
  parts.summary.OnEnd();
  parts.tracker.OnEnd();
  parts.facts.OnEnd();
  parts.ksoftirqd_blocked.NoteLastEvent(parts.last_ts_ns);
  for (EventSink* sink : parts.sinks) sink->OnEnd();
  parts.wake_latency.OnEnd();
}

void AnalysisPipeline::AddContextListener(ContextListener* listener) {
  parts_->tracker.AddListener(listener);
}

void AnalysisPipeline::AddFactListener(FactListener* listener) {
  parts_->facts.AddListener(listener);
}

namespace {

// Keeps the rows (and findings) of the CPUs asked for; all when none were.
template <typename Row>
void KeepCpus(const std::vector<int>& cpus, std::vector<Row>* rows) {
  if (cpus.empty()) return;
  std::erase_if(*rows, [&](const Row& row) {
    return std::find(cpus.begin(), cpus.end(), row.cpu) == cpus.end();
  });
}

}  // namespace

Report AnalysisPipeline::Finish(const TraceContext& context) const {
  Report report;
  report.trace = FinishSummary(parts_->summary, context);
  report.anomalies = parts_->tracker.anomalies();
  report.window = options_.window;
  report.cpus = options_.cpus;
  report.softirq_latency = parts_->softirq_latency.Rows(context);
  report.softirq_runtime = parts_->runtime.SoftirqRows();
  report.hardirq_runtime = parts_->runtime.HardirqRows(context);
  report.cpu_time = parts_->cpu_time.Rows(parts_->summary.cpu_spans());
  TimestampNs span_ns = std::max<TimestampNs>(
      0, std::min(report.trace.last_ts_ns, options_.window.to_ns) -
             std::max(report.trace.first_ts_ns, options_.window.from_ns));
  for (ThreadActivityRow& row : parts_->threads.Rows(span_ns)) {
    (row.task_class == TaskClass::kIrqThread     ? report.irq_threads
     : row.task_class == TaskClass::kNapiKthread ? report.napi_threads
                                                 : report.ksoftirqd)
        .push_back(std::move(row));
  }
  report.ksoftirqd_blocked = parts_->ksoftirqd_blocked.rows();
  report.ksoftirqd_blocked_not_listed = parts_->ksoftirqd_blocked.overflow();
  report.idle_with_pending = parts_->idle_pending.idle_rows();
  report.idle_with_pending_not_listed = parts_->idle_pending.idle_overflow();
  report.softirq_ordering_stalls = parts_->idle_pending.stall_rows();
  report.softirq_ordering_stalls_not_listed = parts_->idle_pending.stall_overflow();
  const AnalysisAvailability* napi = report.Availability("napi");
  bool skb_recorded =
      napi != nullptr &&
      std::find(napi->missing_optional.begin(), napi->missing_optional.end(),
                "net:netif_receive_skb") == napi->missing_optional.end();
  report.napi = parts_->napi.Rows(context, skb_recorded);
  report.rt_wake_latency = parts_->wake_latency.Rows(context);
  for (WakeLatencyRow& row : report.rt_wake_latency) {
    for (WakeLatencySample& sample : row.worst) {
      sample.silent_ns =
          parts_->silence.LongestWithin(row.cpu, sample.waking_ns, sample.switch_in_ns);
    }
  }
  report.net_path = parts_->net_path.Rows();
  report.softirq_thread_starved = parts_->starved.Rows(context, options_.thresholds);
  report.kernel = internal::JudgeKernelModel(report);
  KeepCpus(options_.cpus, &report.softirq_latency);
  KeepCpus(options_.cpus, &report.softirq_runtime);
  KeepCpus(options_.cpus, &report.hardirq_runtime);
  KeepCpus(options_.cpus, &report.cpu_time);
  KeepCpus(options_.cpus, &report.ksoftirqd_blocked);
  KeepCpus(options_.cpus, &report.idle_with_pending);
  KeepCpus(options_.cpus, &report.softirq_ordering_stalls);
  KeepCpus(options_.cpus, &report.napi);
  KeepCpus(options_.cpus, &report.rt_wake_latency);
  KeepCpus(options_.cpus, &report.softirq_thread_starved);
  // An analysis whose required events were not recorded reports that, not what it made of
  // the other events.
  for (const AnalysisDescriptor& analysis : AnalysisDescriptors()) {
    if (AnalysisRan(report.trace, analysis.id)) continue;
    for (const ReportSection& section : analysis.sections) section.clear(&report);
  }
  internal::UnavailableAnalysisFindings(report.trace, &report.findings);
  internal::SoftirqLatencyFindings(report.softirq_latency, options_.thresholds, &report.findings);
  const Thresholds& thresholds = options_.thresholds;
  internal::PingPongFindings(report.irq_threads, thresholds, &report.findings);
  internal::PingPongFindings(report.napi_threads, thresholds, &report.findings);
  internal::KsoftirqdBlockedFindings(report.ksoftirqd_blocked, thresholds, &report.findings);
  internal::IdlePendingFindings(report.idle_with_pending, report.trace.meta.kernel_release,
                                thresholds, &report.findings);
  internal::OrderingStallFindings(report.softirq_ordering_stalls, thresholds, &report.findings);
  internal::NapiBudgetFindings(report.napi, thresholds, &report.findings);
  internal::RtWakeLatencyFindings(report.rt_wake_latency, thresholds, &report.findings);
  internal::SoftirqStarvationFindings(report.softirq_latency, report.rt_wake_latency, thresholds,
                                      &report.findings);
  internal::NetPathFindings(report.net_path, thresholds, &report.findings);
  internal::SoftirqThreadStarvedFindings(report.softirq_thread_starved, &report.findings);
  internal::NoteLostEvents(report.trace.missed, report.trace.first_ts_ns, &report.findings);
  internal::SortFindings(&report.findings);
  return report;
}

}  // namespace napiscope
