// The trace's events as Perfetto's own ftrace events: per-CPU FtraceEventBundles, so Perfetto
// shows its CPU, thread, IRQ and softirq tracks as for a trace it recorded itself. For trace.dat
// they are encoded on the threads that decode each CPU's records, from the decoded records
// themselves (DecodedBundles); for other formats from the merged events (FtraceBundler).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "block_queue.h"
#include "napiscope/analysis_session.h"
#include "napiscope/event_sink.h"
#include "napiscope/loader.h"
#include "napiscope/perfetto_export.h"

namespace napiscope::perfetto_export {

/// Which events the export writes: those in the window, of the CPUs asked for.
class EventScope {
 public:
  /// The window and CPUs of `options`, for a trace of `cpus` CPUs.
  EventScope(const AnalysisOptions& options, int cpus);
  /// True when the CPU is one asked for.
  bool CpuWanted(uint16_t cpu) const {
    return cpu < cpu_wanted_.size() ? cpu_wanted_[cpu] != 0 : all_cpus_;
  }
  /// True when an event of a wanted CPU at `ts_ns` is written.
  bool TimeWanted(TimestampNs ts_ns) const { return window_.Contains(ts_ns); }

 private:
  AnalysisWindow window_;
  bool all_cpus_;
  std::vector<uint8_t> cpu_wanted_;
};

/// Writes `events` (of `cpu`, in order, all to be written) as one FtraceEventBundle packet into
/// `out`, `lost_before` saying that events were lost before the first; string ids are those of
/// `strings`.
void EncodeBundle(uint16_t cpu, bool lost_before, std::span<const Event> events,
                  const StringTable& strings, ProtoWriter* out);

/// Encodes each decoded chunk of a CPU as bundles, on the thread that decoded it, and hands them
/// to the queue as one block, stamped with its first event's time (the decoding is ahead of the
/// analysis, so the stamp is at or after the analysis' progress): the analysing thread never
/// touches them. Records are written as the merge delivers them: undecodable ones and
/// stack-trace records left out, a CPU's time never going backwards, a bundle ended at lost
/// events and the next one saying so.
class DecodedBundles final : public DecodedRecordsObserver {
 public:
  DecodedBundles(BlockQueue* out, const AnalysisOptions& options) : out_(out), options_(options) {}

  void OnDecodingStarts(int cpus) override;
  void OnDecoded(uint16_t cpu, std::span<const Event> events, const StringTable& strings) override;

  /// True once the load said it passes every record here (after OnBegin of the sink, final).
  bool active() const { return active_; }
  /// Adds what was written to `stats` (after the load).
  void AddStats(PerfettoExportStats* stats) const;

 private:
  struct CpuState {
    TimestampNs last_ns = -1;  // time of the CPU's last record
    bool lost_before = false;  // events were lost before the next one written
    int64_t events = 0;
    int64_t bundles = 0;
    uint64_t blocks = 0;  // blocks put: the next one's key's seq
  };

  BlockQueue* out_;
  const AnalysisOptions& options_;
  bool active_ = false;
  std::optional<EventScope> scope_;  // made once the CPUs are known
  std::vector<CpuState> cpus_;     // each touched only by the thread decoding that CPU
};

/// The same from the merged events, on the analysing thread (text traces): a few hundred
/// events per CPU are kept, then written as one bundle.
class FtraceBundler final : public EventSink {
 public:
  FtraceBundler(BlockWriter* out, const AnalysisOptions& options, PerfettoExportStats* stats);

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;

 private:
  struct CpuBuffer {
    std::vector<Event> events;
    bool lost_before = false;  // events were lost before the first buffered one
  };
  void Flush(uint16_t cpu);

  BlockWriter* out_;
  const AnalysisOptions& options_;
  PerfettoExportStats* stats_;
  const TraceContext* context_ = nullptr;
  std::vector<CpuBuffer> cpus_;
  std::optional<EventScope> scope_;  // made at OnBegin
};

}  // namespace napiscope::perfetto_export
