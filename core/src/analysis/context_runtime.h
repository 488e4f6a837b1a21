// Run times of softirqs and hard IRQs (entry to exit) per CPU, from the context tracker.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/duration_recorder.h"
#include "napiscope/contexts.h"
#include "napiscope/report.h"

namespace napiscope::internal {

/// Measures every softirq and hard IRQ whose entry and exit are both in the trace. A softirq
/// preempted inside a task (PREEMPT_RT) is one run: the pieces it spent on the CPU are summed,
/// the time it was switched out is not counted. Nested frames are part of the run.
class ContextRuntime : public ContextListener {
 public:
  explicit ContextRuntime(const AnalysisWindow& window) : window_(window) {}

  ContextReads Reads() const override {
    return {false, ContextKindBit(ContextKind::kHardirq) | ContextKindBit(ContextKind::kSoftirq)};
  }
  void OnInterval(const ContextInterval& interval) override;

  /// One row per (cpu, vec) with a measured run, by cpu then vec.
  std::vector<SoftirqRuntimeRow> SoftirqRows() const;

  /// One row per (cpu, irq, name) with a measured run, by cpu, irq, then name.
  std::vector<HardirqRuntimeRow> HardirqRows(const TraceContext& context) const;

 private:
  // A softirq run whose task was switched out inside it, waiting for its next piece.
  struct Suspended {
    uint16_t cpu;
    TimestampNs start_ns;
    int64_t on_cpu_ns;
    bool start_known;
  };
  struct SoftirqState {
    DurationRecorder runs;
    int64_t preempted_runs = 0;
  };

  void Softirq(const ContextInterval& interval);

  AnalysisWindow window_;
  // Unordered: every softirq and hard IRQ looks its recorder up here, and a hash probe is
  // cheaper than a tree walk; the rows are sorted when they are made.
  absl::flat_hash_map<std::pair<int, uint32_t>, SoftirqState> softirqs_;  // (cpu, vec)
  absl::flat_hash_map<std::tuple<int, InterruptId, StringId>, DurationRecorder>
      hardirqs_;  // (cpu, irq, name)
  // By (task, vec, depth); idle tasks are keyed per CPU as -1 - cpu.
  std::map<std::tuple<int32_t, uint32_t, uint8_t>, Suspended> suspended_;
};

}  // namespace napiscope::internal
