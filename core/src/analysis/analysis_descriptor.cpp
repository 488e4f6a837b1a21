#include "napiscope/analysis_descriptor.h"

#include "napiscope/report.h"

namespace napiscope {

// `required` and `optional` name all an analysis uses of the recorded events, whoever pairs
// them; `reads` lists only the raw kinds its sink still reads: the pairings it needs come from
// the context tracker and the fact producers, which see every event (docs/definitions.md,
// "What each analysis reads").
const std::array<AnalysisDescriptor, static_cast<size_t>(AnalysisId::kCount)>& AnalysisDescriptors() {
  // A task's wakeup: kernels before 4.3 record only sched_wakeup.
  const EventNeed kWake = {"sched:sched_waking", "sched:sched_wakeup"};
  static const std::array<AnalysisDescriptor, static_cast<size_t>(AnalysisId::kCount)>
      kDescriptors = {{
          {AnalysisId::kContexts,
           "contexts",
           "execution contexts and CPU time",
           {"sched:sched_switch"},
           {"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry",
            "irq:softirq_exit", "napi:napi_poll"},
           0,  // each CPU's first and last event: the trace summary's
           {},
           {},
           {{"softirq_runtime", [](Report* r) { r->softirq_runtime.clear(); }},
            {"hardirq_runtime", [](Report* r) { r->hardirq_runtime.clear(); }},
            {"cpu_time", [](Report* r) { r->cpu_time.clear(); }}}},
          {AnalysisId::kSoftirqLatency,
           "softirq_latency",
           "softirq raise-to-entry latency",
           {"irq:softirq_raise", "irq:softirq_entry"},
           {"sched:sched_switch", "irq:irq_handler_entry", "irq:softirq_exit"},
           0,
           {"softirq_latency_p99_warning_ns", "softirq_latency_max_error_ns",
            "softirq_starvation_warning_ns", "softirq_starvation_error_ns", "ordering_stall_ns"},
           {{"softirq-latency", "softirq raise-to-entry latency within limits"}},
           // The ordering stalls are found beside idle with pending (idle_pending.cpp), from the
           // same facts, but need only the raises and entries this analysis needs.
           {{"softirq_latency", [](Report* r) { r->softirq_latency.clear(); }},
            {"softirq_ordering_stalls",
             [](Report* r) {
               r->softirq_ordering_stalls.clear();
               r->softirq_ordering_stalls_not_listed = 0;
             }}}},
          {AnalysisId::kIrqThreadPingpong,
           "irq_thread_pingpong",
           "IRQ-thread ping-pong",
           {"irq:irq_handler_entry", "sched:sched_switch"},
           {"sched:sched_migrate_task", kWake},
           MaskOf(EventKind::kIrqHandlerEntry),  // hard IRQs per CPU
           {"pingpong_min_cross_activations", "pingpong_cross_share_warning",
            "pingpong_cross_share_error", "pingpong_cpu_changes_per_s_warning",
            "pingpong_migrations_per_s_warning", "pingpong_time_off_cpu_share"},
           {{"irq-thread-pingpong", "IRQ threads do not bounce between CPUs"},
            {"irq-thread-placement", "IRQ threads run where their IRQ fires"}},
           {{"irq_threads", [](Report* r) { r->irq_threads.clear(); }}}},
          {AnalysisId::kNapiThreadPingpong,
           "napi_thread_pingpong",
           "NAPI-thread and ksoftirqd ping-pong",
           {kWake, "sched:sched_switch"},
           {"sched:sched_migrate_task"},
           0,
           {"pingpong_min_cross_activations", "pingpong_cross_share_warning",
            "pingpong_cross_share_error", "pingpong_cpu_changes_per_s_warning",
            "pingpong_migrations_per_s_warning", "pingpong_time_off_cpu_share"},
           {{"napi-thread-pingpong", "NAPI threads do not bounce between CPUs"},
            {"napi-thread-placement", "NAPI threads run where they are woken"}},
           {{"napi_threads", [](Report* r) { r->napi_threads.clear(); }},
            {"ksoftirqd", [](Report* r) { r->ksoftirqd.clear(); }}}},
          {AnalysisId::kKsoftirqdBlocked,
           "ksoftirqd_blocked",
           "blocked ksoftirqd chains",
           {"sched:sched_switch", kWake, "irq:softirq_raise", "irq:softirq_entry"},
           {"sched:sched_pi_setprio"},
           MaskOf(EventKind::kSchedSwitch) | MaskOf(EventKind::kSchedWaking) |
               MaskOf(EventKind::kSchedWakeup) | MaskOf(EventKind::kSchedPiSetprio) |
               MaskOf(EventKind::kMissedEvents),
           {"ksoftirqd_blocked_warning_ns", "ksoftirqd_blocked_error_ns"},
           {{"ksoftirqd-blocked", "ksoftirqd is not blocked with work pending"}},
           {{"ksoftirqd_blocked",
             [](Report* r) {
               r->ksoftirqd_blocked.clear();
               r->ksoftirqd_blocked_not_listed = 0;
             }}}},
          {AnalysisId::kIdleWithPending,
           "idle_with_pending",
           "idle with softirqs pending",
           {"sched:sched_switch", "irq:softirq_raise", "irq:softirq_entry"},
           {},
           MaskOf(EventKind::kSchedSwitch) | MaskOf(EventKind::kMissedEvents),
           {"idle_pending_warning_ns"},
           {{"softirq-pending-at-idle", "no CPU goes idle with softirqs pending"},
            {"softirq-ordering-stall", "no softirq waits behind a lower vector"}},
           {{"idle_with_pending",
             [](Report* r) {
               r->idle_with_pending.clear();
               r->idle_with_pending_not_listed = 0;
             }}}},
          {AnalysisId::kNapi,
           "napi",
           "NAPI polling and budget",
           {"napi:napi_poll"},
           {"irq:softirq_entry", "sched:sched_switch", "net:netif_receive_skb"},
           MaskOf(EventKind::kNetifReceiveSkb) | MaskOf(EventKind::kMissedEvents),
           {"napi_min_polls", "napi_exhausted_share", "napi_ksoftirqd_share"},
           {{"napi-budget-exhausted", "NAPI polls rarely use their whole budget"}},
           {{"napi", [](Report* r) { r->napi.clear(); }}}},
          {AnalysisId::kRtWakeLatency,
           "rt_wake_latency",
           "RT wake latency",
           {kWake, "sched:sched_switch"},
           {"irq:irq_handler_entry", "irq:softirq_entry"},
           0,
           {"rt_wake_latency_warning_ns", "rt_wake_latency_error_ns",
            "softirq_starvation_warning_ns", "softirq_starvation_error_ns"},
           {{"rt-wake-latency", "RT threads run soon after their wakeup"},
            {"softirq-starvation", "softirqs do not wait behind RT tasks"}},
           {{"rt_wake_latency", [](Report* r) { r->rt_wake_latency.clear(); }}}},
          {AnalysisId::kNetPath,
           "net_path",
           "network path priorities",
           {"irq:irq_handler_entry", "sched:sched_switch", kWake},
           {"irq:softirq_raise", "irq:softirq_entry", "napi:napi_poll"},
           // Hard IRQs (and x86 vectors) per IRQ, polls per NAPI thread, the priority each task
           // was switched in at; NET_RX waits and NAPI-thread wakeups come paired, with their
           // IRQ, from the facts.
           MaskOf(EventKind::kIrqHandlerEntry) | MaskOf(EventKind::kIrqVectorEntry) |
               MaskOf(EventKind::kNapiPoll) | MaskOf(EventKind::kSchedSwitch),
           {"softirq_starvation_warning_ns", "softirq_starvation_error_ns"},
           {{"net-path-priority",
             "NIC IRQ threads above their NET_RX runners, both above the RT tasks that starve "
             "them"}},
           {{"net_path", [](Report* r) { r->net_path.clear(); }}}},
          {AnalysisId::kSoftirqThreadStarved,
           "softirq_thread_starved",
           "ksoftirqd starved by RT tasks",
           {"sched:sched_switch", "irq:softirq_raise"},
           {"irq:softirq_entry"},
           0,  // who held each CPU from the tracker's segments, the waits from the facts
           {"softirq_starvation_warning_ns", "softirq_thread_starved_rt_share"},
           {{"softirq-thread-starved",
             "ksoftirqd runs while softirq work waits and RT tasks hold its CPU"}},
           {{"softirq_thread_starved", [](Report* r) { r->softirq_thread_starved.clear(); }}}},
      }};
  return kDescriptors;
}

const AnalysisDescriptor& DescriptorOf(AnalysisId id) {
  return AnalysisDescriptors()[static_cast<size_t>(id)];
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
