#include "napiscope/perfetto_export.h"

#include <cstdio>

#include "batch_queue.h"
#include "context_tracks.h"
#include "fact_tracks.h"
#include "finding_instants.h"
#include "ftrace_bundler.h"
#include "napiscope/loader.h"
#include "packet_writer.h"
#include "track_writer.h"

namespace napiscope {
namespace {

// The loader's events to the analysis and the bundler, and the trace context to the track
// writers (names of tasks, devices, handlers): a direct call each, no fan-out loop.
class ExportSink final : public EventSink {
 public:
  ExportSink(const TraceContext** context, AnalysisPipeline* pipeline,
             perfetto_export::FtraceBundler* bundler)
      : context_(context), pipeline_(pipeline), bundler_(bundler) {}
  void OnBegin(const TraceContext& context) override {
    *context_ = &context;
    pipeline_->OnBegin(context);
    bundler_->OnBegin(context);
  }
  void OnEvent(const Event& event) override {
    pipeline_->OnEvent(event);
    bundler_->OnEvent(event);
  }
  void OnEnd() override {
    pipeline_->OnEnd();
    bundler_->OnEnd();
  }

 private:
  const TraceContext** context_;
  AnalysisPipeline* pipeline_;
  perfetto_export::FtraceBundler* bundler_;
};

}  // namespace

absl::Status ExportPerfettoTrace(const std::string& trace_path, const std::string& out_path,
                                 const AnalysisOptions& options, PerfettoExportStats* stats) {
  using namespace perfetto_export;
  PerfettoExportStats local;
  PerfettoExportStats* counts = stats != nullptr ? stats : &local;
  PacketWriter out;
  if (absl::Status status = out.Open(out_path); !status.ok()) return status;
  // The analysing thread encodes the tracks and gathers the events; another thread encodes the
  // events and writes the file, unless the export was asked to run on one thread.
  BatchEncoder encoder(&out);
  BatchQueue batches(&encoder, options.load.threads != 1);

  const TraceContext* context_seen = nullptr;
  TrackWriter writer(&batches, counts);
  TrackLayout layout(&writer, &context_seen);
  ContextTracks context_tracks(&layout, options);
  FactTracks fact_tracks(&layout, options);
  AnalysisPipeline pipeline(options);
  pipeline.AddContextListener(&context_tracks);
  pipeline.AddFactListener(&fact_tracks);
  FtraceBundler bundler(&batches, options, counts);
  ExportSink sink(&context_seen, &pipeline, &bundler);

  TraceContext context;
  absl::Status status = LoadTrace(trace_path, context, sink, options.load);
  if (!status.ok()) {
    batches.Finish();
    (void)out.Close();
    if (out_path != "-") std::remove(out_path.c_str());  // no half-written trace left behind
    return status;
  }
  Report report = pipeline.Finish(context);
  WriteFindingInstants(report.findings, &layout);
  batches.Finish();
  counts->bytes = out.bytes();
  return out.Close();
}

}  // namespace napiscope
