// Statistics of a time range of a Timeline, for the GUI's charts: raise-to-entry delay
// histograms, where each CPU's time went, thread activations same-CPU vs cross-CPU, and NAPI
// work per poll. Computed from the timeline's lanes, so they follow any selected range.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "napiscope/duration_stats.h"
#include "napiscope/timeline.h"

namespace napiscope {

/// Raise-to-entry waits raised in [from_ns, to_ns), per vector, on `cpu` (-1: all CPUs).
/// As in the report's analysis window, what begins inside the range counts.
std::array<LogHistogram, kSoftirqVectorCount> SoftirqWaitHistograms(const Timeline& timeline,
                                                                    int cpu, TimestampNs from_ns,
                                                                    TimestampNs to_ns);

/// Where one CPU's time in a range went. Each instant belongs to the innermost context: hard
/// IRQ over softirq over task (the ContextTracker's exclusive time); the parts sum to span_ns.
struct CpuTimeBreakdown {
  int cpu = 0;
  int64_t span_ns = 0;
  int64_t unknown_ns = 0;  ///< in gaps: nothing is known
  int64_t hardirq_ns = 0;
  std::array<int64_t, kSoftirqVectorCount> softirq_ns{};
  std::array<int64_t, 7> task_ns{};  ///< by TaskClass (kIdle stays 0: idle is idle_ns)
  int64_t idle_ns = 0;               ///< no task, IRQ or softirq known to run
};

/// The breakdown of `cpu` over [from_ns, to_ns).
CpuTimeBreakdown BreakDownCpuTime(const Timeline& timeline, int cpu, TimestampNs from_ns,
                                  TimestampNs to_ns);

/// Activations of one thread that began (hard IRQ or waking) in a range.
struct ThreadActivations {
  ActivationKind kind = ActivationKind::kIrqThread;
  int32_t pid = 0;
  StringId comm = 0;
  int64_t same_cpu = 0;
  int64_t cross_cpu = 0;
};

/// Per thread, activations that began in [from_ns, to_ns); most cross-CPU first.
std::vector<ThreadActivations> CountActivations(const Timeline& timeline, TimestampNs from_ns,
                                                TimestampNs to_ns);

/// NAPI polls that began in a range, counted by work done.
struct NapiWorkHistogram {
  std::vector<int64_t> polls_by_work;  ///< index = work (packets processed)
  int64_t polls = 0;
  int64_t exhausted = 0;  ///< polls with work >= budget
  int32_t budget = 0;     ///< the largest budget seen
};

/// NAPI work per poll on `cpu` (-1: all CPUs) for polls beginning in [from_ns, to_ns).
NapiWorkHistogram CountNapiWork(const Timeline& timeline, int cpu, TimestampNs from_ns,
                                TimestampNs to_ns);

}  // namespace napiscope
