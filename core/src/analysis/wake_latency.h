// Wake latency (sched_waking -> switch-in) of real-time threads and of the threads that serve
// softirqs (IRQ threads, ksoftirqd, NAPI kthreads), with what held the CPU during the longest.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/duration_recorder.h"
#include "napiscope/contexts.h"
#include "napiscope/facts.h"
#include "napiscope/report.h"
#include "napiscope/task_classifier.h"
#include "napiscope/wait_blame.h"

namespace napiscope::internal {

/// Wake-to-run waits as the fact producers pair them (docs/definitions.md, "Wake-to-run
/// waits"), of real-time threads and of threads that serve softirqs. The wait is charged to
/// whatever ran on the CPU the thread was queued on (its target CPU until a sched_migrate_task,
/// then the destination). Add it as a listener of the FactProducers and of `tracker`; call
/// OnEnd() after the tracker's.
class WakeLatency : public FactListener, public ContextListener {
 public:
  /// Wakeups kept with their blame per row, longest first.
  static constexpr size_t kWorstWakeups = 5;

  WakeLatency(const ContextTracker* tracker, const AnalysisWindow& window);

  void OnWakeQueued(const WakeWaitFact& fact) override;
  void OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                   TimestampNs ts_ns) override;
  void OnWakeRan(const WakeRunFact& run) override;
  void OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) override;
  /// Closes the wakeups still waiting for segments; what no segment covered is unknown.
  void OnEnd();
  ContextReads Reads() const override { return {true, 0}; }
  void OnSegment(const CpuSegment& segment) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

  /// One row per (thread, CPU it ran on), by pid then CPU.
  std::vector<WakeLatencyRow> Rows(const TraceContext& context) const;

 private:
  struct Wait {
    int32_t pid = 0;
    uint16_t waker_cpu = 0;
    uint16_t queue_cpu = 0;
    bool in_window = false;
    bool switched_in = false;
    int open_spans = 0;  // spans whose segments have not all arrived
    TimestampNs waking_ns = 0;
    TimestampNs switch_in_ns = 0;
    uint16_t switch_in_cpu = 0;
    WaitBlame blame;
  };
  // A stretch of a wait on the CPU it was queued on; to_ns is open (max) while it is queued
  // there. Segments arrive per CPU in time order but late (each when the CPU next has an
  // event, or after the tracker's warm-up), so a span stays until they have passed to_ns.
  struct Span {
    uint64_t wait_id = 0;
    TimestampNs from_ns = 0;
    TimestampNs to_ns = 0;
  };
  struct CpuState {
    std::vector<Span> spans;
    TimestampNs segments_until_ns = INT64_MIN;
  };
  struct Row {
    StringId comm = 0;
    int16_t prio = -1;
    DurationRecorder latency;
    LogHistogram histogram;
    int64_t dropped = 0;
    std::vector<Wait> worst;  // longest first, at most kWorstWakeups
  };

  // Inline: asked at nearly every call; the CPU is nearly always there already.
  CpuState& Cpu(uint16_t cpu) { return cpu < cpus_.size() ? cpus_[cpu] : Grow(cpu); }
  CpuState& Grow(uint16_t cpu);
  Row& RowOf(int32_t pid, uint16_t cpu) { return rows_[{pid, cpu}]; }
  void CloseSpan(uint64_t wait_id, uint16_t cpu, TimestampNs ts);
  void RetireSpans(uint16_t cpu);
  void Discard(uint64_t wait_id);
  void Finish(uint64_t wait_id);
  void Charge(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns, const ContextFrame* frame);

  const ContextTracker* tracker_;
  TaskClassifier classifier_;  // of waking tasks, by name and priority only
  AnalysisWindow window_;
  std::vector<CpuState> cpus_;
  absl::flat_hash_map<uint64_t, Wait> waits_;  // woken and not yet fully charged, by wait id
  std::map<std::pair<int32_t, uint16_t>, Row> rows_;
};

}  // namespace napiscope::internal
