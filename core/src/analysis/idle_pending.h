// CPUs going idle with softirqs raised and not processed (the kernel's "NOHZ ... softirq work
// is pending" warning), and vectors left waiting behind a lower-numbered one in progress.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/softirq_pending.h"
#include "napiscope/contexts.h"
#include "napiscope/report.h"
#include "napiscope/scheduling_rows.h"

namespace napiscope::internal {

/// Add to a FanoutSink after `tracker` (it reads the softirq frames open at each raise).
class IdlePending : public EventSink {
 public:
  /// Rows kept in full per kind; later ones are only counted.
  static constexpr size_t kMaxRows = 1000;

  IdlePending(const ContextTracker* tracker, const AnalysisWindow& window,
              int64_t stall_threshold_ns)
      : tracker_(tracker), window_(window), stall_threshold_ns_(stall_threshold_ns) {}

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;

  /// Idle entries with softirqs pending, in time order.
  const std::vector<IdleWithPendingRow>& idle_rows() const { return idle_rows_; }
  /// Idle entries with softirqs pending past kMaxRows.
  int64_t idle_overflow() const { return idle_overflow_; }
  /// Waits of at least the threshold behind a lower vector in progress, in time order.
  const std::vector<SoftirqOrderingStallRow>& stall_rows() const { return stall_rows_; }
  /// Stalls past kMaxRows.
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

  CpuState& Cpu(uint16_t cpu);
  void Entered(CpuState& cpu, const Event& event);

  const ContextTracker* tracker_;
  AnalysisWindow window_;
  int64_t stall_threshold_ns_;
  const TraceContext* context_ = nullptr;
  SoftirqPending pending_;
  std::vector<CpuState> cpus_;
  std::vector<IdleWithPendingRow> idle_rows_;
  std::vector<SoftirqOrderingStallRow> stall_rows_;
  int64_t idle_overflow_ = 0;
  int64_t stall_overflow_ = 0;
};

}  // namespace napiscope::internal
