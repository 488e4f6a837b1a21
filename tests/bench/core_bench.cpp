// Micro-benchmarks of the hot paths on a generated 16-CPU trace (Google Benchmark):
// page reading + decoding, the merged load, context reconstruction, latency pairing, and the
// whole analysis pipeline. Items per second are events per second.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/softirq_latency.h"
#include "load/chunk_decoder.h"
#include "load/tracedat_header_reader.h"
#include "load/tracedat_tep.h"
#include "napiscope/analysis_session.h"
#include "napiscope/contexts.h"
#include "napiscope/loader.h"
#include "napiscope/producers.h"
#include "napiscope/timeline_builder.h"
#include "tracegen/event_describe.h"
#include "tracegen/synthetic.h"

namespace napiscope {
namespace {

constexpr int64_t kEvents = 1'000'000;

// The generated trace and its events, made once per process.
struct Fixture {
  std::string path;
  TraceContext context;
  std::vector<Event> events;

  Fixture() {
    char dir[] = "/tmp/napiscope-bench-XXXXXX";
    if (mkdtemp(dir) == nullptr) std::abort();
    path = std::string(dir) + "/synthetic.dat";
    tracegen::SyntheticOptions options;
    options.events = kEvents;
    options.cpus = 16;
    if (!tracegen::WriteSyntheticTrace(path, options).ok()) std::abort();
    tracegen::CollectingSink sink;
    if (!LoadTrace(path, context, sink).ok()) std::abort();
    events = std::move(sink.events);
  }
  ~Fixture() { std::remove(path.c_str()); }
};

Fixture& Trace() {
  static Fixture fixture;
  return fixture;
}

class CountingSink : public EventSink {
 public:
  void OnEvent(const Event& event) override { sum_ += event.ts_ns; }
  int64_t sum_ = 0;
};

// Reading CPU 0's pages with kbuffer and decoding them into chunks.
void BM_DecodeOneCpu(benchmark::State& state) {
  Fixture& trace = Trace();
  internal::TraceDatHeader header;
  if (!internal::ReadTraceDatHeader(trace.path, "", &header).ok()) std::abort();
  internal::TracedatParser parser;
  if (!internal::BuildTracedatParser(header, &parser).ok()) std::abort();
  int fd = open(trace.path.c_str(), O_RDONLY);
  internal::PageLayout layout;
  layout.page_size = header.page_size;
  layout.big_endian = header.big_endian;
  layout.header_long_size = header.long_size;
  internal::ChunkDecoder decoder(parser.formats);
  internal::DecodedChunk chunk;
  int64_t events = 0;
  for (auto _ : state) {
    internal::CpuStream stream;
    stream.reader = std::make_unique<internal::PageCpuReader>(fd, layout, header.top_buffer[0]);
    while (!stream.finished) {
      decoder.DecodeChunk(stream, 0, &chunk);
      events += static_cast<int64_t>(chunk.events.size());
    }
  }
  state.SetItemsProcessed(events);
  close(fd);
}
BENCHMARK(BM_DecodeOneCpu)->Unit(benchmark::kMillisecond);

// The whole load (open, decode, merge by timestamp) into a sink that does nothing.
void BM_LoadMerged(benchmark::State& state) {
  Fixture& trace = Trace();
  LoadOptions options;
  options.threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    TraceContext context;
    CountingSink sink;
    if (!LoadTrace(trace.path, context, sink, options).ok()) std::abort();
    benchmark::DoNotOptimize(sink.sum_);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.events.size()));
}
BENCHMARK(BM_LoadMerged)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Context reconstruction: the tracker alone over decoded events.
void BM_ContextTracker(benchmark::State& state) {
  Fixture& trace = Trace();
  for (auto _ : state) {
    ContextTracker tracker;
    tracker.OnBegin(trace.context);
    for (const Event& event : trace.events) tracker.OnEvent(event);
    tracker.OnEnd();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.events.size()));
}
BENCHMARK(BM_ContextTracker)->Unit(benchmark::kMillisecond);

// Latency pairing: the fact producers' softirq raise -> entry with the tracker they read.
void BM_SoftirqLatency(benchmark::State& state) {
  Fixture& trace = Trace();
  for (auto _ : state) {
    ContextTracker tracker;
    FactProducers facts(&tracker);
    internal::SoftirqLatency latency(AnalysisWindow{});
    tracker.AddListener(&facts);
    tracker.AddListener(&latency);
    facts.AddListener(&latency);
    tracker.OnBegin(trace.context);
    facts.OnBegin(trace.context);
    for (const Event& event : trace.events) {
      tracker.OnEvent(event);
      facts.OnEvent(event);
    }
    benchmark::DoNotOptimize(latency.Rows(trace.context));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.events.size()));
}
BENCHMARK(BM_SoftirqLatency)->Unit(benchmark::kMillisecond);

// Every analysis of `napiscope report`, over decoded events (no loading).
void BM_AnalysisPipeline(benchmark::State& state) {
  Fixture& trace = Trace();
  for (auto _ : state) {
    AnalysisSession pipeline(AnalysisOptions{});
    pipeline.OnBegin(trace.context);
    for (const Event& event : trace.events) pipeline.OnEvent(event);
    pipeline.OnEnd();
    benchmark::DoNotOptimize(pipeline.Finish(trace.context));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.events.size()));
}
BENCHMARK(BM_AnalysisPipeline)->Unit(benchmark::kMillisecond);

// The GUI's model: the timeline built over the events; reports its bytes per event.
void BM_TimelineModel(benchmark::State& state) {
  Fixture& trace = Trace();
  double bytes_per_event = 0;
  for (auto _ : state) {
    ContextTracker tracker;
    TimelineBuilder builder;
    tracker.AddListener(&builder);
    FanoutSink fanout;
    fanout.Add(&tracker);
    fanout.Add(&builder);
    fanout.OnBegin(trace.context);
    for (const Event& event : trace.events) fanout.OnEvent(event);
    fanout.OnEnd();
    Timeline timeline = builder.Finish();
    bytes_per_event = static_cast<double>(timeline.BytesUsed()) / timeline.events();
  }
  state.counters["bytes_per_event"] = bytes_per_event;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.events.size()));
}
BENCHMARK(BM_TimelineModel)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace napiscope

BENCHMARK_MAIN();
