// CPUs going idle with softirqs raised and not processed (the kernel's "NOHZ ... softirq work
// is pending" warning), and vectors left waiting behind a lower-numbered one in progress.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/softirq_latency.h"
#include "napiscope/contexts.h"
#include "napiscope/producers.h"
#include "napiscope/report.h"
#include "napiscope/scheduling_rows.h"

namespace napiscope::internal {

/// Reads the pending mask and first raises from `facts` (add it as their listener) and the
/// softirq frames open at each raise from `tracker`; add it to a FanoutSink after both. A
/// stall's blame (who held the CPU during the wait) is the one `latency` computes for that
/// wait: add this after `latency` to the facts' listeners (nullptr: stalls without blame).
class IdlePending : public EventSink, public FactListener {
 public:
  /// Keeps the first `max_rows` rows of each kind in full; later ones are only counted.
  IdlePending(const ContextTracker* tracker, const FactProducers* facts,
              const AnalysisWindow& window, int64_t stall_threshold_ns, size_t max_rows,
              SoftirqLatency* latency = nullptr)
      : tracker_(tracker),
        facts_(facts),
        latency_(latency),
        window_(window),
        stall_threshold_ns_(stall_threshold_ns),
        max_rows_(max_rows) {}

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  /// Gives each stall row its blame, complete now that the stream has ended.
  void OnEnd() override;
  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override;
  void OnSoftirqWait(const SoftirqWaitFact& wait) override;

  /// Idle entries with softirqs pending, in time order.
  const std::vector<IdleWithPendingRow>& idle_rows() const { return idle_rows_; }
  /// Idle entries with softirqs pending past the first max_rows.
  int64_t idle_overflow() const { return idle_overflow_; }
  /// Waits of at least the threshold behind a lower vector in progress, in time order.
  const std::vector<SoftirqOrderingStallRow>& stall_rows() const { return stall_rows_; }
  /// Stalls past the first max_rows.
  int64_t stall_overflow() const { return stall_overflow_; }

 private:
  struct Blocker {
    bool present = false;
    uint32_t vec = 0;
    int32_t pid = 0;
    SoftirqSite site = SoftirqSite::kNone;
    bool preempted = false;  // its task was switched out inside it (PREEMPT_RT)
  };
  struct CpuState {
    std::vector<size_t> open_idle;   // rows in idle_rows_ with vectors not yet processed
    Blocker blocker[32];             // per vec: the lower vector in progress at its raise
  };

  // Inline: asked at nearly every call; the CPU is nearly always there already.
  CpuState& Cpu(uint16_t cpu) { return cpu < cpus_.size() ? cpus_[cpu] : Grow(cpu); }
  CpuState& Grow(uint16_t cpu);

  const ContextTracker* tracker_;
  const FactProducers* facts_;
  SoftirqLatency* latency_;
  AnalysisWindow window_;
  int64_t stall_threshold_ns_;
  size_t max_rows_;
  const TraceContext* context_ = nullptr;
  std::vector<CpuState> cpus_;
  std::vector<IdleWithPendingRow> idle_rows_;
  std::vector<SoftirqOrderingStallRow> stall_rows_;
  int64_t idle_overflow_ = 0;
  int64_t stall_overflow_ = 0;
};

}  // namespace napiscope::internal
