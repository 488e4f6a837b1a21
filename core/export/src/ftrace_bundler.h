// The trace's events as Perfetto's own ftrace events: per-CPU FtraceEventBundles, written as the
// events stream in, so Perfetto shows its CPU, thread, IRQ and softirq tracks as for a trace it
// recorded itself.
#pragma once

#include <cstdint>
#include <vector>

#include "batch_queue.h"
#include "napiscope/analysis_pipeline.h"
#include "napiscope/event_sink.h"
#include "napiscope/perfetto_export.h"

namespace napiscope::perfetto_export {

/// Buffers a few hundred events per CPU, then sends them as one bundle. Events outside the
/// window or the CPUs asked for are not written; a CPU's bundle after lost events says so.
class FtraceBundler final : public EventSink {
 public:
  FtraceBundler(BatchQueue* out, const AnalysisOptions& options, PerfettoExportStats* stats);

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;

 private:
  struct CpuBuffer {
    std::vector<Event> events;
    bool lost_before = false;  // events were lost before the first buffered one
  };
  void Flush(uint16_t cpu);
  bool Wanted(const Event& event) const;

  BatchQueue* out_;
  const AnalysisOptions& options_;
  PerfettoExportStats* stats_;
  const TraceContext* context_ = nullptr;
  std::vector<CpuBuffer> cpus_;
  std::vector<bool> cpu_wanted_;
};

}  // namespace napiscope::perfetto_export
