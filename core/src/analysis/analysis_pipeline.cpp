#include "napiscope/analysis_pipeline.h"

#include <algorithm>

#include "analysis/context_runtime.h"
#include "analysis/cpu_time.h"
#include "analysis/finding_rules.h"
#include "analysis/softirq_latency.h"
#include "napiscope/contexts.h"

namespace napiscope {

// Sinks see each event in the order added: the tracker first, so analyses that read its state
// at an event see the state after that event.
struct AnalysisPipeline::Parts {
  explicit Parts(const AnalysisWindow& window)
      : softirq_latency(&tracker, window), runtime(window), cpu_time(window) {
    tracker.AddListener(&softirq_latency);
    tracker.AddListener(&runtime);
    tracker.AddListener(&cpu_time);
    fanout.Add(&summary);
    fanout.Add(&tracker);
    fanout.Add(&softirq_latency);
    fanout.Add(&cpu_time);
  }

  TraceSummaryBuilder summary;
  ContextTracker tracker;
  internal::SoftirqLatency softirq_latency;
  internal::ContextRuntime runtime;
  internal::CpuTime cpu_time;
  FanoutSink fanout;
};

AnalysisPipeline::AnalysisPipeline(const AnalysisOptions& options)
    : options_(options), parts_(std::make_unique<Parts>(options.window)) {}

AnalysisPipeline::~AnalysisPipeline() = default;

void AnalysisPipeline::OnBegin(const TraceContext& context) { parts_->fanout.OnBegin(context); }

void AnalysisPipeline::OnEvent(const Event& event) { parts_->fanout.OnEvent(event); }

void AnalysisPipeline::OnEnd() { parts_->fanout.OnEnd(); }

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

Report AnalysisPipeline::Finish(const TraceContext& context) {
  Report report;
  report.trace = parts_->summary.Finish(context);
  report.anomalies = parts_->tracker.anomalies();
  report.window = options_.window;
  report.cpus = options_.cpus;
  report.softirq_latency = parts_->softirq_latency.Rows(context);
  report.softirq_runtime = parts_->runtime.SoftirqRows();
  report.hardirq_runtime = parts_->runtime.HardirqRows(context);
  report.cpu_time = parts_->cpu_time.Rows();
  KeepCpus(options_.cpus, &report.softirq_latency);
  KeepCpus(options_.cpus, &report.softirq_runtime);
  KeepCpus(options_.cpus, &report.hardirq_runtime);
  KeepCpus(options_.cpus, &report.cpu_time);
  internal::UnavailableAnalysisFindings(report.trace, &report.findings);
  internal::SoftirqLatencyFindings(report.softirq_latency, options_.thresholds, &report.findings);
  internal::SortFindings(&report.findings);
  return report;
}

absl::Status AnalyzeTrace(const std::string& path, const AnalysisOptions& options, Report* report) {
  TraceContext context;
  AnalysisPipeline pipeline(options);
  absl::Status status = LoadTrace(path, context, pipeline, options.load);
  if (!status.ok()) return status;
  *report = pipeline.Finish(context);
  return absl::OkStatus();
}

}  // namespace napiscope
