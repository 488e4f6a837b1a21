// Pairs wakeups of IRQ threads, NAPI kthreads and ksoftirqd with their next switch-in for the
// timeline's arrows, with the same rules as the report's thread activity analysis
// (analysis/thread_activity.cpp), so the arrows, the GUI's counts and the report agree.
#pragma once

#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event_sink.h"
#include "napiscope/timeline.h"

namespace napiscope::internal {

/// Feed every event in stream order; Take() returns the activations in switch-in order.
class ActivationPairer {
 public:
  void OnBegin(const TraceContext& context);
  void OnEvent(const Event& event);

  /// The activations found so far; the pairer is empty afterwards.
  std::vector<Activation> Take();

 private:
  struct Thread {
    TaskClass task_class = TaskClass::kOther;
    int32_t irq = -1;
    StringId comm = 0;
    int running_cpu = -1;
    bool pending = false;
    TimestampNs pending_ns = 0;
    int pending_cpu = -1;
  };

  Thread* Find(int32_t pid);
  Thread* Track(int32_t pid, StringId comm, int16_t prio);
  void Wakeup(Thread& thread, int cpu, TimestampNs ts_ns);
  void SwitchIn(int32_t pid, Thread& thread, int cpu, TimestampNs ts_ns, bool exact);
  void SwitchOut(int cpu);

  const TraceContext* context_ = nullptr;
  absl::flat_hash_map<int32_t, Thread> threads_;
  absl::flat_hash_map<int32_t, std::vector<int32_t>> irq_threads_;            // irq -> thread pids
  absl::flat_hash_map<int32_t, std::pair<TimestampNs, int>> unclaimed_irqs_;  // before a thread
  std::vector<int32_t> current_;                                              // per CPU, -1 unknown
  std::vector<TimestampNs> last_gap_ns_;  // per CPU: the latest missed-events marker
  std::vector<Activation> activations_;
};

}  // namespace napiscope::internal
