#include "napiscope/perfetto_export.h"

#include <optional>

#include <fmt/format.h>

#include "block_queue.h"
#include "context_tracks.h"
#include "fact_tracks.h"
#include "finding_instants.h"
#include "ftrace_bundler.h"
#include "napiscope/loader.h"
#include "packet_writer.h"
#include "track_thread.h"
#include "track_writer.h"

namespace napiscope {
namespace {

// The loader's events to the analysis, and to the bundler when the load does not pass the
// records to the decoding threads' bundles (text); the trace context to the track writers
// (names of tasks, devices, handlers): a direct call each, no fan-out loop. Before each event
// the writers learn its time (what they write for it is stamped with it); on one thread, the
// queue learns every few thousand events how far the tracks are written. The export's threads
// start at the beginning of the events (see ExportPerfettoTrace).
class ExportSink final : public EventSink {
 public:
  ExportSink(const TraceContext** context, AnalysisSession* pipeline,
             const perfetto_export::DecodedBundles* decoded,
             perfetto_export::FtraceBundler* bundler, perfetto_export::BlockWriter* packets,
             perfetto_export::BlockWriter* track_packets, perfetto_export::BlockQueue* blocks,
             perfetto_export::TrackThread* track_thread)
      : context_(context),
        pipeline_(pipeline),
        decoded_(decoded),
        bundler_(bundler),
        packets_(packets),
        track_packets_(track_packets),
        blocks_(blocks),
        track_thread_(track_thread) {}
  void OnBegin(const TraceContext& context) override {
    blocks_->Start();
    if (track_thread_ != nullptr) track_thread_->Start();
    *context_ = &context;
    pipeline_->OnBegin(context);
    if (decoded_->active()) bundler_ = nullptr;
    if (bundler_ != nullptr) bundler_->OnBegin(context);
  }
  void OnEvent(const Event& event) override {
    if (track_thread_ != nullptr) {
      track_thread_->Tick(event.ts_ns);
    } else {
      track_packets_->SetNow(event.ts_ns);
    }
    pipeline_->OnEvent(event);
    if (bundler_ != nullptr) {
      packets_->SetNow(event.ts_ns);
      bundler_->OnEvent(event);
    }
    if (track_thread_ == nullptr && ++events_since_progress_ >= kProgressEvents) {
      events_since_progress_ = 0;
      blocks_->Progress(event.ts_ns);
    }
  }
  void OnEnd() override {
    pipeline_->OnEnd();
    if (bundler_ != nullptr) bundler_->OnEnd();
  }

 private:
  static constexpr int kProgressEvents = 4096;

  const TraceContext** context_;
  AnalysisSession* pipeline_;
  const perfetto_export::DecodedBundles* decoded_;
  perfetto_export::FtraceBundler* bundler_;
  perfetto_export::BlockWriter* packets_;
  perfetto_export::BlockWriter* track_packets_;
  perfetto_export::BlockQueue* blocks_;
  perfetto_export::TrackThread* track_thread_;
  int events_since_progress_ = 0;
};

}  // namespace

absl::Status ExportPerfettoTrace(const std::string& trace_path, const std::string& out_path,
                                 const AnalysisOptions& options, PerfettoExportStats* stats) {
  using namespace perfetto_export;
  PerfettoExportStats local;
  PerfettoExportStats* counts = stats != nullptr ? stats : &local;
  PacketWriter out;
  if (absl::Status status = out.Open(out_path); !status.ok()) return status;
  // The decoding threads encode their CPUs' events, the track thread napiscope's tracks and
  // another thread writes the file, unless the export was asked to run on one thread (then the
  // analysing thread does all, in the same order).
  bool threaded = options.load.threads != 1;
  BlockQueue blocks(&out, threaded);
  BlockWriter packets(&blocks, block_source::kAnalysing);  // text traces' ftrace bundles
  BlockWriter track_packets(&blocks, block_source::kTracks);

  const TraceContext* context_seen = nullptr;
  TrackWriter writer(&track_packets, counts);
  TrackLayout layout(&writer, &context_seen);
  ContextTracks context_tracks(&layout, options);
  FactTracks fact_tracks(&layout, options);
  std::optional<TrackThread> track_thread;
  SessionOutputs outputs;
  if (threaded) {
    track_thread.emplace(&context_tracks, &fact_tracks, &layout, &context_seen, &track_packets,
                         &blocks);
    outputs.context_listeners = {&*track_thread};
    outputs.fact_listeners = {&*track_thread};
  } else {
    outputs.context_listeners = {&context_tracks};
    outputs.fact_listeners = {&fact_tracks};
  }
  AnalysisSession pipeline(options, outputs);
  DecodedBundles decoded(&blocks, options);
  FtraceBundler bundler(&packets, options, counts);
  // The threads start once the loader has read the header: it checks the event formats in a
  // forked child, and a fork while a thread of this process is starting can leave the child an
  // allocator lock that nobody releases (seen under ASan: the check timed out, and a good file
  // was called corrupt).
  ExportSink sink(&context_seen, &pipeline, &decoded, &bundler, &packets, &track_packets, &blocks,
                  track_thread ? &*track_thread : nullptr);
  LoadOptions load = options.load;
  load.decoded_records = &decoded;

  TraceContext context;
  absl::Status status = LoadTrace(trace_path, context, sink, load);
  if (track_thread) track_thread->Finish();  // every track written; names from `context` again
  if (!status.ok()) {
    blocks.Finish();
    out.Abandon();
    return status;
  }
  decoded.AddStats(counts);
  Report report = pipeline.Finish(context);
  track_packets.SetNow(kAfterTrace);  // the findings come after every event
  WriteFindingInstants(report.findings, &layout);
  counts->findings = static_cast<int64_t>(report.findings.size());
  counts->trace = std::move(report.trace);
  track_packets.Flush();
  packets.Flush();
  blocks.Finish();
  counts->bytes = out.bytes();
  return out.Close();
}

std::string PerfettoOpeningAdvice(const std::string& path, int64_t bytes) {
  if (bytes <= kPerfettoBrowserBytes) return "";
  return fmt::format(
      "{} is {} MiB, more than a browser tab holds for ui.perfetto.dev: run "
      "`trace_processor_shell --httpd {}` and open ui.perfetto.dev, which then uses it "
      "(perfetto.dev/docs/visualization/large-traces), or export less with --from/--to/--cpu",
      path, bytes >> 20, path);
}

}  // namespace napiscope
