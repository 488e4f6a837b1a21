// A ksoftirqd starved for the whole recording: it did not run once while softirq work waited on
// its CPU and RT tasks held that CPU. It was runnable before the trace began, so no wakeup can
// be timed (docs/definitions.md, "Starved softirq thread").
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "napiscope/contexts.h"
#include "napiscope/facts.h"
#include "napiscope/findings.h"
#include "napiscope/report.h"
#include "napiscope/thresholds.h"

namespace napiscope::internal {

/// Who held each CPU (add it as a context listener) and how long its softirqs waited (add it
/// as a fact listener).
class SoftirqThreadStarved : public ContextListener, public FactListener {
 public:
  explicit SoftirqThreadStarved(const AnalysisWindow& window) : window_(window) {}

  ContextReads Reads() const override { return {true, 0}; }
  void OnSegment(const CpuSegment& segment) override;
  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override;
  void OnSoftirqWait(const SoftirqWaitFact& wait) override;
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) override;
  void OnWakeQueued(const WakeWaitFact& wait) override;

  /// One row per CPU whose ksoftirqd was never woken before the window's end (a woken one has a
  /// wakeup to time: softirq-starvation explains its wait) and did not run while a softirq waited there at least
  /// `thresholds.softirq_starvation_warning_ns` and RT tasks held at least
  /// `thresholds.softirq_thread_starved_rt_share` of it; by CPU.
  std::vector<StarvedSoftirqThreadRow> Rows(const TraceContext& context,
                                            const Thresholds& thresholds) const;

 private:
  struct Rt {
    int64_t time_ns = 0;
    int16_t prio = -1;  // the most urgent seen
  };
  struct CpuState {
    TimestampNs first_ns = -1;  // the first segment's start in the window
    TimestampNs last_ns = -1;   // the last segment's end
    bool ksoftirqd_ran = false;
    std::map<int32_t, Rt> rt;              // RT pid (not a softirq-serving thread) -> time
    std::map<uint32_t, TimestampNs> pending;  // vec -> raise not yet entered
    uint32_t longest_vec = 0;
    TimestampNs longest_raise_ns = 0;
    int64_t longest_wait_ns = 0;
  };
  CpuState& Cpu(uint16_t cpu);

  AnalysisWindow window_;
  std::vector<CpuState> cpus_;
  std::set<int32_t> woken_;  // tasks woken before the window's end
};

/// softirq-thread-starved: one warning per row, naming the thread, the CPU, the RT tasks that
/// held it and the chrt command that puts the thread above them.
void SoftirqThreadStarvedFindings(const std::vector<StarvedSoftirqThreadRow>& rows,
                                  std::vector<Finding>* findings);

}  // namespace napiscope::internal
