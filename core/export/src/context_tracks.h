// What the context tracker reconstructs, as tracks: softirq runs and hard IRQs per CPU, NAPI
// polls per instance (with a packets-per-poll counter), and the time each CPU's events were lost.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/analysis_session.h"
#include "napiscope/contexts.h"
#include "track_writer.h"

namespace napiscope::perfetto_export {

/// Copies of the trace's strings and the tasks' comms, for a thread other than the analysing
/// one (the trace context changes as the trace streams in).
struct NameCopies {
  absl::flat_hash_map<StringId, std::string> strings;  ///< texts by id
  absl::flat_hash_map<int32_t, StringId> comms;        ///< comm by pid, as of the last record
};

/// Names and groups the tracks the export writes, one place for all writers.
class TrackLayout {
 public:
  TrackLayout(TrackWriter* tracks, const TraceContext** context)
      : tracks_(tracks), context_(context) {}

  /// Names come from `copies` (nullptr: from the trace context).
  void UseNames(const NameCopies* copies) { copies_ = copies; }

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
  std::string_view Str(StringId id) const;

  TrackWriter* writer() { return tracks_; }

 private:
  TrackWriter* tracks_;
  const TraceContext** context_;
  const NameCopies* copies_ = nullptr;
};

/// True when [start_ns, end_ns] meets the window and `cpu` is one asked for.
bool InScope(const AnalysisOptions& options, uint16_t cpu, TimestampNs start_ns,
             TimestampNs end_ns);

/// Interned iids of strings the track writers use per slice, looked up once.
class InternCache {
 public:
  explicit InternCache(TrackWriter* writer) : writer_(writer) {}
  /// The event name `format` gives for softirq vector `vec` (0-255), interned once per vector.
  template <typename Format>
  uint64_t PerVector(std::array<uint64_t, 256>* iids, uint32_t vec, Format&& format) {
    uint64_t& iid = (*iids)[vec & 0xff];
    if (iid == 0) iid = writer_->EventName(format(vec));
    return iid;
  }
  /// The event name `text(id)` gives for trace string `id`, interned once per id.
  template <typename Text>
  uint64_t PerString(StringId id, Text&& text) {
    auto [it, inserted] = strings_.try_emplace(id, 0);
    if (inserted) it->second = writer_->EventName(text(id));
    return it->second;
  }

 private:
  TrackWriter* writer_;
  absl::flat_hash_map<StringId, uint64_t> strings_;
};

/// Writes the tracker's intervals and unknown time as they are reported.
class ContextTracks : public ContextListener {
 public:
  ContextTracks(TrackLayout* layout, const AnalysisOptions& options);

  /// Intervals of softirqs, hard IRQs and NAPI polls; no segments, no task intervals.
  ContextReads Reads() const override;
  void OnInterval(const ContextInterval& interval) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

 private:
  void Softirq(const ContextInterval& interval);
  void Hardirq(const ContextInterval& interval);
  void NapiPoll(const ContextInterval& interval);

  // The interned strings of the slices.
  struct Iids {
    uint64_t softirq, hardirq, napi, lost;                        // categories
    uint64_t poll, poll_exhausted, events_lost;                   // event names
    uint64_t vec, ran_in, pid, irq, x86_vector, interrupted_pid, work, budget, exhausted, cpu,
        lost_ns, start_known, end_known, resumed, suspended;  // arg names
  };
  // Appends the flags that are not their usual value.
  size_t AddUnusualFlags(const ContextInterval& interval, Arg* args, size_t count) const;

  TrackLayout* layout_;
  const AnalysisOptions& options_;
  Iids iids_;
  InternCache cache_;
  std::array<uint64_t, 256> vector_names_{};  // softirq run names per vector
};

}  // namespace napiscope::perfetto_export
