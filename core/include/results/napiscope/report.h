// The result of `napiscope report`: plain structs filled by the analysis pipeline, read by the
// CLI renderers and the GUI. All times are integer nanoseconds of the trace clock.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "napiscope/blame.h"
#include "napiscope/contexts.h"
#include "napiscope/duration_stats.h"
#include "napiscope/findings.h"
#include "napiscope/napi_rt_rows.h"
#include "napiscope/net_path.h"
#include "napiscope/scheduling_rows.h"
#include "napiscope/trace_summary.h"

namespace napiscope {

/// One raise-to-entry wait with its blame.
struct SoftirqWait {
  TimestampNs raise_ns = 0;
  TimestampNs entry_ns = 0;
  int64_t delay_ns = 0;
  SoftirqSite ran_in = SoftirqSite::kNone;
  std::vector<BlameItem> blame;  ///< largest first; sums to delay_ns - unknown_ns
  int64_t unknown_ns = 0;        ///< part of the wait nothing is known about (missing switch)
};

/// Softirq raise-to-entry latency of one vector on one CPU.
struct SoftirqLatencyRow {
  int cpu = 0;
  uint32_t vec = 0;
  DurationStats delay;                ///< max_at_ns is the raise
  int64_t dropped_pairs = 0;          ///< raises pending when events were lost on this CPU
  int64_t entries_without_raise = 0;  ///< entries with no raise pending (raised before the trace)
  std::map<SoftirqSite, int64_t> ran_in;  ///< paired entries by where they ran; sums to count
  std::vector<SoftirqWait> worst;         ///< the longest waits (up to 5), longest first
};

/// Softirq run time (entry to exit) of one vector on one CPU.
struct SoftirqRuntimeRow {
  int cpu = 0;
  uint32_t vec = 0;
  DurationStats run;  ///< time on the CPU, pieces of a run preempted on RT summed; max_at = entry
  int64_t preempted_runs = 0;  ///< runs whose task was switched out inside the softirq
};

/// Hard-IRQ run time (entry to exit) of one IRQ (or x86 vector) on one CPU.
struct HardirqRuntimeRow {
  int cpu = 0;
  InterruptId irq;    ///< the device IRQ or x86 vector
  std::string name;   ///< handler name ("eth0") or x86 vector name ("local_timer")
  DurationStats run;  ///< nested hard IRQs included; max_at = entry
};

/// Where one CPU's traced time went; the parts sum to span_ns - unknown_ns exactly.
struct CpuTimeRow {
  int cpu = 0;
  TimestampNs first_ts_ns = 0;  ///< first event on the CPU (clipped to the window)
  TimestampNs last_ts_ns = 0;   ///< last event on the CPU (clipped to the window)
  int64_t span_ns = 0;
  int64_t unknown_ns = 0;  ///< lost events or missing context switches
  int64_t idle_ns = 0;
  int64_t hardirq_ns = 0;
  std::vector<int64_t> softirq_ns;  ///< by vector (index = vec), at least kSoftirqVectorCount
  int64_t irq_thread_ns = 0;    ///< task level of irq/N-* threads (their softirqs count as softirq)
  int64_t ksoftirqd_ns = 0;     ///< task level of ksoftirqd/N outside softirq frames
  int64_t napi_kthread_ns = 0;  ///< task level of napi/* threads outside softirq frames
  int64_t rt_task_ns = 0;       ///< other tasks with an RT priority
  int64_t other_task_ns = 0;    ///< all remaining tasks

  /// Everything but unknown: equals span_ns - unknown_ns.
  int64_t AccountedNs() const;
};

/// The time range analysed: measurements count when they begin inside [from_ns, to_ns].
struct AnalysisWindow {
  TimestampNs from_ns = std::numeric_limits<TimestampNs>::min();
  TimestampNs to_ns = std::numeric_limits<TimestampNs>::max();

  /// True when it restricts anything.
  bool restricted() const;
  /// True when `ts_ns` is inside the window (bounds included).
  bool Contains(TimestampNs ts_ns) const { return ts_ns >= from_ns && ts_ns <= to_ns; }
};

/// What the trace says about the kernel's preemption model (PREEMPT_RT or not).
struct KernelModel {
  std::string preempt_rt = "unknown";  ///< "yes" (uname says so), "likely", "no" or "unknown"
  std::string evidence;                ///< why, in one sentence
  int64_t irq_threads = 0;             ///< irq/N-* threads that ran
  int64_t softirqs_at_irq_exit = 0;    ///< paired softirq entries at hard-IRQ exit
  int64_t softirqs_in_threads = 0;     ///< ... in IRQ threads, ksoftirqd, RT softirq threads or NAPI kthreads
  int64_t softirq_threads = 0;         ///< RT softirq threads (sirq-*, ktimersoftd, ktimers) that ran
  int64_t softirqs_in_softirq_threads = 0;  ///< paired softirq entries in those threads
  /// What the verdict rests on: "uname", "rt_softirq_threads", "forced_irq_threads",
  /// "irq_threads", "softirq_sites"; empty when unknown.
  std::vector<std::string> evidence_used;
};

/// Everything `napiscope report` shows.
struct Report {
  TraceSummary trace;          ///< file facts, event counts, missed events, analyses available
  ContextAnomalies anomalies;  ///< what did not fit the context model
  AnalysisWindow window;
  std::vector<int> cpus;                           ///< CPUs the rows are restricted to; empty: all
  std::vector<SoftirqLatencyRow> softirq_latency;  ///< by cpu, then vec
  std::vector<SoftirqRuntimeRow> softirq_runtime;  ///< by cpu, then vec
  std::vector<HardirqRuntimeRow> hardirq_runtime;  ///< by cpu, then irq, then name
  std::vector<CpuTimeRow> cpu_time;                ///< by cpu
  std::vector<ThreadActivityRow> irq_threads;      ///< by irq, then comm
  std::vector<ThreadActivityRow> napi_threads;     ///< by comm
  std::vector<ThreadActivityRow> ksoftirqd;        ///< by comm
  std::vector<KsoftirqdBlockedRow> ksoftirqd_blocked;  ///< by start
  int64_t ksoftirqd_blocked_not_listed = 0;        ///< intervals past the listed ones
  std::vector<IdleWithPendingRow> idle_with_pending;   ///< by time
  int64_t idle_with_pending_not_listed = 0;
  std::vector<SoftirqOrderingStallRow> softirq_ordering_stalls;  ///< by time
  int64_t softirq_ordering_stalls_not_listed = 0;
  std::vector<StarvedSoftirqThreadRow> softirq_thread_starved;  ///< by CPU
  std::vector<NapiRow> napi;                       ///< by dev, napi, cpu, context
  std::vector<WakeLatencyRow> rt_wake_latency;     ///< RT and softirq-serving threads, by pid, cpu
  std::vector<NetPathRow> net_path;                ///< per NIC IRQ: its chain's priorities
  KernelModel kernel;                              ///< PREEMPT_RT or not, and why
  std::vector<Finding> findings;                   ///< most severe first

  /// The availability entry of analysis `id` (an AnalysisDescriptor key), or nullptr.
  const AnalysisAvailability* Availability(std::string_view id) const;
};

}  // namespace napiscope
