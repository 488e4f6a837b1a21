// What the context tracker reconstructs, as tracks: softirq runs and hard IRQs per CPU, NAPI
// polls per instance (with a packets-per-poll counter), and the time each CPU's events were lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "napiscope/analysis_pipeline.h"
#include "napiscope/contexts.h"
#include "track_writer.h"

namespace napiscope::perfetto_export {

/// Names and groups the tracks the export writes, one place for all writers.
class TrackLayout {
 public:
  TrackLayout(TrackWriter* tracks, const TraceContext** context)
      : tracks_(tracks), context_(context) {}

  uint64_t CpuGroup(uint16_t cpu);                       ///< "napiscope CPU N"
  uint64_t CpuTrack(TrackKind kind, uint16_t cpu);       ///< one of the CPU's tracks
  uint64_t SoftirqWaits(uint16_t cpu, uint32_t vec);     ///< "NET_RX waits"
  uint64_t NapiInstance(uint64_t napi, StringId dev);    ///< "NAPI eth0 0xffff..."
  uint64_t NapiPackets(uint64_t napi, StringId dev);     ///< "packets per poll eth0 0xffff..."
  uint64_t Thread(int32_t pid);                          ///< "comm pid wake->run"
  uint64_t ThreadActivations(int32_t pid);               ///< "comm pid activations"
  uint64_t ThreadFindings(int32_t pid);                  ///< "findings comm pid"
  uint64_t TraceFindings();                              ///< "napiscope findings"
  /// The comm of `pid` as the trace names it ("" when unknown).
  std::string_view Comm(int32_t pid) const;
  /// A string of the trace's string table.
  std::string_view Str(StringId id) const { return (*context_)->strings.Get(id); }

  TrackWriter* writer() { return tracks_; }

 private:
  TrackWriter* tracks_;
  const TraceContext** context_;
};

/// True when [start_ns, end_ns] meets the window and `cpu` is one asked for.
bool InScope(const AnalysisOptions& options, uint16_t cpu, TimestampNs start_ns,
             TimestampNs end_ns);

/// Writes the tracker's intervals and unknown time as they are reported.
class ContextTracks : public ContextListener {
 public:
  ContextTracks(TrackLayout* layout, const AnalysisOptions& options)
      : layout_(layout), options_(options) {}

  void OnInterval(const ContextInterval& interval) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

 private:
  void Softirq(const ContextInterval& interval);
  void Hardirq(const ContextInterval& interval);
  void NapiPoll(const ContextInterval& interval);

  TrackLayout* layout_;
  const AnalysisOptions& options_;
  std::vector<Arg> args_;  // reused from slice to slice
};

}  // namespace napiscope::perfetto_export
