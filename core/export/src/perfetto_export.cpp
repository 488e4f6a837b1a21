#include "napiscope/perfetto_export.h"

#include <cstdio>

#include "context_tracks.h"
#include "fact_tracks.h"
#include "finding_instants.h"
#include "ftrace_bundler.h"
#include "napiscope/loader.h"
#include "packet_writer.h"
#include "track_writer.h"

namespace napiscope {
namespace {

// Remembers the trace context for the track writers (names of tasks, devices, handlers).
class ContextHolder : public EventSink {
 public:
  explicit ContextHolder(const TraceContext** context) : context_(context) {}
  void OnBegin(const TraceContext& context) override { *context_ = &context; }
  void OnEvent(const Event&) override {}

 private:
  const TraceContext** context_;
};

}  // namespace

absl::Status ExportPerfettoTrace(const std::string& trace_path, const std::string& out_path,
                                 const AnalysisOptions& options, PerfettoExportStats* stats) {
  using namespace perfetto_export;
  PerfettoExportStats local;
  PerfettoExportStats* counts = stats != nullptr ? stats : &local;
  PacketWriter out;
  if (absl::Status status = out.Open(out_path); !status.ok()) return status;

  const TraceContext* context_seen = nullptr;
  TrackWriter writer(&out, counts);
  TrackLayout layout(&writer, &context_seen);
  ContextTracks context_tracks(&layout, options);
  FactTracks fact_tracks(&layout, options);
  ContextHolder holder(&context_seen);
  AnalysisPipeline pipeline(options);
  pipeline.AddContextListener(&context_tracks);
  pipeline.AddFactListener(&fact_tracks);
  FtraceBundler bundler(&out, options, counts);
  FanoutSink fanout;
  fanout.Add(&holder);
  fanout.Add(&pipeline);
  fanout.Add(&bundler);

  TraceContext context;
  absl::Status status = LoadTrace(trace_path, context, fanout, options.load);
  if (!status.ok()) {
    (void)out.Close();
    if (out_path != "-") std::remove(out_path.c_str());  // no half-written trace left behind
    return status;
  }
  Report report = pipeline.Finish(context);
  WriteFindingInstants(report.findings, &layout);
  counts->bytes = out.bytes();
  return out.Close();
}

}  // namespace napiscope
