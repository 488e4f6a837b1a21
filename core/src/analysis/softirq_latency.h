// Softirq raise-to-entry latency per (cpu, vec), where the softirq ran, and who held the CPU
// during the longest waits.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "analysis/duration_recorder.h"
#include "napiscope/contexts.h"
#include "napiscope/facts.h"
#include "napiscope/report.h"
#include "napiscope/wait_blame.h"

namespace napiscope::internal {

/// Softirq waits as the fact producers pair them (docs/definitions.md, "Softirq waits"), with
/// who held the CPU during the longest. Add it as a listener of the FactProducers (for the
/// waits) and of the tracker (for blame).
class SoftirqLatency : public FactListener, public ContextListener {
 public:
  /// Waits shown per (cpu, vec), longest first.
  static constexpr size_t kWorstWaits = 5;

  explicit SoftirqLatency(const AnalysisWindow& window) : window_(window) {}

  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override;
  void OnSoftirqWait(const SoftirqWaitFact& fact) override;
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) override;
  ContextReads Reads() const override { return {true, 0}; }
  void OnSegment(const CpuSegment& segment) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

  /// One row per (cpu, vec) that had a pair, a dropped pair or an entry, by cpu then vec.
  std::vector<SoftirqLatencyRow> Rows(const TraceContext& context) const;

  /// Keeps the blame of the wait of `vec` raised last on `cpu`, if it waits at least
  /// `min_wait_ns`, for KeptBlame (the ordering stalls' rows; call it after the raise).
  void KeepBlame(uint16_t cpu, uint32_t vec, int64_t min_wait_ns);
  /// The blame of a wait kept by KeepBlame, or nullptr; complete once the stream has ended.
  const WaitBlame* KeptBlame(int cpu, uint32_t vec, TimestampNs raise_ns) const;

 private:
  struct Wait {
    uint32_t vec = 0;
    TimestampNs raise_ns = 0;
    TimestampNs entry_ns = 0;
    bool entered = false;
    bool blame_complete = false;  // the segment stream of the CPU has passed entry_ns
    int64_t keep_from_ns = -1;    // KeepBlame: keep it when it waits this long (-1: no)
    SoftirqSite site = SoftirqSite::kNone;
    WaitBlame blame;
  };
  struct VecState {
    DurationRecorder delays;
    int64_t dropped_pairs = 0;
    int64_t entries_without_raise = 0;
    std::map<SoftirqSite, int64_t> ran_in;
    std::vector<Wait> worst;  // longest first (ties: earlier raise first), at most kWorstWaits
  };
  struct CpuState {
    std::vector<Wait> pending;  // raised, not entered; at most one per vec
    std::vector<Wait> spare;    // waits dropped, kept for their blame's memory
    std::vector<VecState> vecs;
    std::vector<Wait> kept;     // entered waits KeepBlame asked for, in entry order
    TimestampNs segments_until_ns = INT64_MIN;  // the CPU's segment stream reached here
    int incomplete_worst = 0;                   // worst and kept waits still collecting blame
  };

  // Inline: asked at nearly every call; the CPU is nearly always there already.
  CpuState& Cpu(uint16_t cpu) { return cpu < cpus_.size() ? cpus_[cpu] : Grow(cpu); }
  CpuState& Grow(uint16_t cpu);
  VecState& Vec(CpuState& cpu, uint32_t vec);
  void KeepIfWorst(CpuState& cpu, VecState& state, Wait wait);
  // Keeps a dropped wait for the next raise of the CPU (a raise per softirq would otherwise
  // allocate its blame's holders anew).
  static void Recycle(CpuState& cpu, Wait wait);
  void Attribute(CpuState& cpu, TimestampNs start_ns, TimestampNs end_ns,
                 const ContextFrame* frame);
  // Charges the worst and kept waits of `cpu` still collecting blame.
  void ChargeIncomplete(CpuState& cpu, std::vector<Wait>& waits, TimestampNs start_ns,
                        TimestampNs end_ns, const ContextFrame* frame);

  AnalysisWindow window_;
  std::vector<CpuState> cpus_;
};

}  // namespace napiscope::internal
