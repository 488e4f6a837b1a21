// Activations of IRQ threads, NAPI kthreads and ksoftirqd: where they were woken, where they
// then ran, how long that took, and how often they changed CPU (ping-pong).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/duration_recorder.h"
#include "napiscope/contexts.h"
#include "napiscope/scheduling_rows.h"

namespace napiscope::internal {

/// An activation of an IRQ thread is the first hard IRQ of its number while it is not running,
/// paired with its next switch-in; for NAPI kthreads and ksoftirqd it is the first sched_waking
/// while not running, paired the same way. Cross-CPU: the switch-in is on another CPU than the
/// hard IRQ or the waking. Add it to a FanoutSink and as a listener of the ContextTracker.
class ThreadActivity : public EventSink, public ContextListener {
 public:
  explicit ThreadActivity(const AnalysisWindow& window) : window_(window) {}

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  void OnInterval(const ContextInterval& interval) override;

  /// One row per thread seen: IRQ threads (by IRQ), then ksoftirqd, then NAPI kthreads.
  std::vector<ThreadActivityRow> Rows(TimestampNs span_ns) const;

 private:
  struct Thread {
    TaskClass task_class = TaskClass::kOther;
    int32_t pid = 0;
    StringId comm = 0;
    int16_t prio = -1;
    int32_t irq = -1;
    int running_cpu = -1;  // -1: not running
    bool pending = false;
    TimestampNs pending_ns = 0;
    int pending_cpu = -1;
    int last_run_cpu = -1;
    ThreadActivityRow counts;  // counters filled as events come; stats added in Rows()
    DurationRecorder same_cpu;
    DurationRecorder cross_cpu;
  };

  Thread* Track(int32_t pid, StringId comm, int16_t prio);
  Thread* Find(int32_t pid);
  void SwitchIn(Thread& thread, int cpu, TimestampNs ts_ns, bool exact);
  void Wakeup(Thread& thread, int cpu, TimestampNs ts_ns);
  void SwitchOut(int cpu);

  AnalysisWindow window_;
  const TraceContext* context_ = nullptr;
  absl::flat_hash_map<int32_t, Thread> threads_;
  absl::flat_hash_map<int32_t, std::vector<int32_t>> irq_threads_;  // irq -> thread pids
  absl::flat_hash_map<int32_t, std::map<int, int64_t>> hardirq_cpus_;
  absl::flat_hash_map<int32_t, StringId> irq_handlers_;
  // First hard IRQ of an IRQ whose thread has not appeared yet: (ts, cpu).
  absl::flat_hash_map<int32_t, std::pair<TimestampNs, int>> unclaimed_irqs_;
  std::vector<int32_t> current_;           // per CPU: task we believe runs, -1 unknown
  std::vector<TimestampNs> last_gap_ns_;   // per CPU: last lost-events marker
};

}  // namespace napiscope::internal
