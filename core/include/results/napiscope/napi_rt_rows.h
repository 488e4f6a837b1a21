// Report rows about NAPI polling per instance and context, and about how late real-time (and
// softirq-serving) threads ran after their wakeups, with what held the CPU meanwhile.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/blame.h"
#include "napiscope/contexts.h"
#include "napiscope/duration_stats.h"
#include "napiscope/task_class.h"

namespace napiscope {

/// Stable name of where a NAPI poll ran: the SoftirqSite names, and "busy_poll" for a poll
/// at task level outside a NAPI kthread (SoftirqSite::kNone: napi_busy_loop, netpoll).
std::string_view NapiContextName(SoftirqSite site);

/// Where the NAPI poll `frame` ran: its site, except that a poll at task level outside a NAPI
/// kthread before the CPU settled is kUnknown (its softirq may have begun before the trace or
/// a gap), not busy polling.
SoftirqSite NapiPollContext(const ContextFrame& frame);

/// Count, nearest-rank percentiles and extremes of small integer counts (packets per poll).
struct CountStats {
  int64_t count = 0;
  int64_t min = 0;
  int64_t p50 = 0;
  int64_t p90 = 0;
  int64_t p99 = 0;
  int64_t max = 0;
  double mean = 0;
};

/// The device napi:napi_poll names the backlog by: the per-CPU queue of netif_rx, RPS and
/// loopback, which has no device of its own.
inline constexpr std::string_view kBacklogNapiDevice = "(no_device)";

/// napi:napi_poll calls of one NAPI instance on one CPU in one context.
struct NapiRow {
  uint64_t napi = 0;        ///< napi_struct address
  std::string dev;          ///< device name, "(no_device)" for the per-CPU backlog
  int cpu = 0;
  SoftirqSite context = SoftirqSite::kUnknown;  ///< where the polls ran (NapiContextName)
  int32_t budget = 0;       ///< the largest budget seen
  int64_t polls = 0;
  int64_t exhausted = 0;    ///< polls with work >= budget: the instance is polled again
  int64_t work = 0;         ///< packets processed, summed
  int64_t max_consecutive_exhausted = 0;  ///< longest run of exhausted polls of the instance
                                          ///< (across contexts) that reached a poll of this row
  TimestampNs longest_chain_start_ns = 0;  ///< that run's first exhausted poll began here
  TimestampNs longest_chain_end_ns = 0;    ///< ... and its last one ended here
  CountStats work_per_poll;
  DurationStats poll_time;  ///< from the enclosing softirq/kthread run or previous poll to the poll
  int64_t netif_receive_skb = -1;  ///< net:netif_receive_skb of `dev` inside these polls;
                                   ///< -1 when the event was not recorded
  int64_t dropped_chains = 0;      ///< exhausted chains cut by lost events (length unknown)
  int32_t kthread_pid = -1;        ///< polls in a NAPI kthread: its pid (napi/<dev>-<id>)

  /// True for the backlog's polls (kBacklogNapiDevice).
  bool IsBacklog() const { return dev == kBacklogNapiDevice; }
  /// exhausted / polls, 0 without polls.
  double ExhaustedShare() const {
    return polls > 0 ? static_cast<double>(exhausted) / static_cast<double>(polls) : 0;
  }
};

/// A `prio`-based view of a task's scheduling class, as sched events show it.
enum class SchedPolicyClass : uint8_t {
  kRealtime,  ///< SCHED_FIFO or SCHED_RR (kernel prio 0-99; the trace cannot tell which)
  kNormal,    ///< SCHED_OTHER/BATCH/IDLE (kernel prio 100-139)
};

/// Stable name ("rt", "normal").
std::string_view SchedPolicyClassName(SchedPolicyClass policy);

/// One wakeup (sched_waking -> switch-in) of a thread and what held the CPU meanwhile.
struct WakeLatencySample {
  TimestampNs waking_ns = 0;     ///< sched_waking
  TimestampNs switch_in_ns = 0;  ///< sched_switch to the thread
  int64_t latency_ns = 0;
  int waker_cpu = 0;             ///< CPU of the sched_waking
  std::vector<BlameItem> blame;  ///< largest first; sums to latency_ns - unknown_ns
  int64_t unknown_ns = 0;
  int64_t silent_ns = 0;  ///< longest stretch of it (1 ms or more) its CPU recorded no event in
};

/// Wake latency of one thread on the CPU it was switched in on.
struct WakeLatencyRow {
  int32_t pid = 0;
  std::string comm;
  TaskClass task_class = TaskClass::kOther;
  SchedPolicyClass policy = SchedPolicyClass::kNormal;
  int16_t prio = -1;    ///< kernel priority at the wakeups (lowest seen)
  int cpu = 0;          ///< the CPU it was switched in on
  DurationStats latency;  ///< max_at_ns is the sched_waking
  LogHistogram histogram;  ///< the same latencies in power-of-two buckets
  int64_t dropped = 0;  ///< wakeups whose switch-in fell behind lost events (unknown)
  std::vector<WakeLatencySample> worst;  ///< the longest (up to 5), longest first
};

/// Role of a holder during an RT thread's wake latency, for blame summaries: "hardirq",
/// "softirq", "idle" (exit from an idle state), "higher_prio" (a task at the same or a more
/// urgent priority), "lower_prio" (a less urgent task that kept the CPU: a non-preemptible
/// section), "napi_poll", or "task" when a priority is unknown.
std::string_view WakeBlameRole(const BlameItem& item, int16_t woken_prio);

}  // namespace napiscope
