#include "napiscope/analysis_descriptor.h"

#include <cstdlib>

namespace napiscope {

// `reads` lists only the raw kinds each analysis's sink still reads; the pairings it needs come
// from the context tracker and the fact producers, which see every event (docs/definitions.md,
// "What each analysis reads").
const std::array<AnalysisDescriptor, static_cast<size_t>(AnalysisId::kCount)>& AnalysisDescriptors() {
  static const std::array<AnalysisDescriptor, static_cast<size_t>(AnalysisId::kCount)>
      kDescriptors = {{
          {AnalysisId::kContexts,
           "contexts",
           0,  // each CPU's first and last event: the trace summary's
           {},
           {"softirq_runtime", "hardirq_runtime", "cpu_time"}},
          {AnalysisId::kSoftirqLatency,
           "softirq_latency",
           0,
           {"softirq_latency_p99_warning_ns", "softirq_latency_max_error_ns",
            "softirq_starvation_warning_ns", "softirq_starvation_error_ns", "ordering_stall_ns"},
           // The ordering stalls are found beside idle with pending (idle_pending.cpp), from the
           // same facts, but need only the raises and entries this analysis needs.
           {"softirq_latency", "softirq_ordering_stalls"}},
          {AnalysisId::kIrqThreadPingpong,
           "irq_thread_pingpong",
           MaskOf(EventKind::kIrqHandlerEntry),  // hard IRQs per CPU
           {"pingpong_min_cross_activations", "pingpong_cross_share_warning",
            "pingpong_cross_share_error", "pingpong_cpu_changes_per_s_warning",
            "pingpong_migrations_per_s_warning", "pingpong_time_off_cpu_share"},
           {"irq_threads"}},
          {AnalysisId::kNapiThreadPingpong,
           "napi_thread_pingpong",
           0,
           {"pingpong_min_cross_activations", "pingpong_cross_share_warning",
            "pingpong_cross_share_error", "pingpong_cpu_changes_per_s_warning",
            "pingpong_migrations_per_s_warning", "pingpong_time_off_cpu_share"},
           {"napi_threads", "ksoftirqd"}},
          {AnalysisId::kKsoftirqdBlocked,
           "ksoftirqd_blocked",
           MaskOf(EventKind::kSchedSwitch) | MaskOf(EventKind::kSchedWaking) |
               MaskOf(EventKind::kSchedWakeup) | MaskOf(EventKind::kSchedPiSetprio) |
               MaskOf(EventKind::kMissedEvents),
           {"ksoftirqd_blocked_warning_ns", "ksoftirqd_blocked_error_ns"},
           {"ksoftirqd_blocked"}},
          {AnalysisId::kIdleWithPending,
           "idle_with_pending",
           MaskOf(EventKind::kSchedSwitch) | MaskOf(EventKind::kMissedEvents),
           {"idle_pending_warning_ns"},
           {"idle_with_pending"}},
          {AnalysisId::kNapi,
           "napi",
           MaskOf(EventKind::kNetifReceiveSkb) | MaskOf(EventKind::kMissedEvents),
           {"napi_min_polls", "napi_exhausted_share", "napi_ksoftirqd_share"},
           {"napi"}},
          {AnalysisId::kRtWakeLatency,
           "rt_wake_latency",
           0,
           {"rt_wake_latency_warning_ns", "rt_wake_latency_error_ns",
            "softirq_starvation_warning_ns", "softirq_starvation_error_ns"},
           {"rt_wake_latency"}},
          {AnalysisId::kNetPath,
           "net_path",
           // Hard IRQs per IRQ, polls per NAPI thread, the priority each task was switched in at;
           // NET_RX waits and NAPI-thread wakeups come paired, with their IRQ, from the facts.
           MaskOf(EventKind::kIrqHandlerEntry) | MaskOf(EventKind::kNapiPoll) |
               MaskOf(EventKind::kSchedSwitch),
           {"softirq_starvation_warning_ns", "softirq_starvation_error_ns"},
           {"net_path"}},
      }};
  return kDescriptors;
}

const AnalysisDescriptor& DescriptorOf(AnalysisId id) {
  return AnalysisDescriptors()[static_cast<size_t>(id)];
}

const AnalysisRequirement& RequirementOf(AnalysisId id) {
  const AnalysisRequirement* requirement = FindAnalysisRequirement(DescriptorOf(id).key);
  if (requirement == nullptr) std::abort();  // the descriptor and requirement tables disagree
  return *requirement;
}

const AnalysisAvailability* AvailabilityOf(const TraceSummary& trace, AnalysisId id) {
  std::string_view key = DescriptorOf(id).key;
  for (const AnalysisAvailability& analysis : trace.analyses) {
    if (analysis.id == key) return &analysis;
  }
  return nullptr;
}

bool AnalysisRan(const TraceSummary& trace, AnalysisId id) {
  const AnalysisAvailability* analysis = AvailabilityOf(trace, id);
  return analysis != nullptr && analysis->available;
}

}  // namespace napiscope
