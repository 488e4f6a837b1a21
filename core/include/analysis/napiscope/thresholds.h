// Thresholds of the finding rules, with their defaults; configuration layers go on top.
#pragma once

#include <cstdint>
#include <map>

namespace napiscope {

/// When a rule turns a measurement into a finding. A value <= 0 disables that check.
struct Thresholds {
  /// softirq-latency: warning when the p99 raise-to-entry delay of a (cpu, vec) exceeds this.
  int64_t softirq_latency_p99_warning_ns = 1'000'000;
  /// softirq-latency: error when the max raise-to-entry delay of a (cpu, vec) exceeds this.
  int64_t softirq_latency_max_error_ns = 5'000'000;
  /// softirq-latency: per-vector overrides of softirq_latency_p99_warning_ns (key = vec).
  std::map<uint32_t, int64_t> softirq_latency_p99_warning_ns_by_vec;
  /// softirq-latency: per-vector overrides of softirq_latency_max_error_ns (key = vec).
  std::map<uint32_t, int64_t> softirq_latency_max_error_ns_by_vec;

  /// irq-/napi-thread-pingpong: only with at least this many cross-CPU activations (or CPU
  /// changes), so a short trace or a one-off affinity change is not called ping-pong.
  int64_t pingpong_min_cross_activations = 20;
  /// irq-/napi-thread-pingpong: warning at this share of cross-CPU activations (0..1).
  double pingpong_cross_share_warning = 0.25;
  /// irq-/napi-thread-pingpong: error at this share (a free thread on 2 CPUs bounces ~50%).
  double pingpong_cross_share_error = 0.5;
  /// irq-/napi-thread-pingpong: a thread bounces when it changes CPU in at least 10% of its
  /// runs, or this often per second.
  double pingpong_cpu_changes_per_s_warning = 100;
  /// irq-/napi-thread-pingpong: a thread also bounces when it migrates this often per second
  /// with at least pingpong_time_off_cpu_share of its run time off its main CPU.
  double pingpong_migrations_per_s_warning = 20;
  /// irq-/napi-thread-pingpong: the share of run time off its main CPU (0..1) that, with
  /// pingpong_migrations_per_s_warning, makes migrations ping-pong.
  double pingpong_time_off_cpu_share = 0.2;

  /// ksoftirqd-blocked: warning when ksoftirqd stays switched out this long with work pending.
  int64_t ksoftirqd_blocked_warning_ns = 1'000'000;
  /// ksoftirqd-blocked: error from this long.
  int64_t ksoftirqd_blocked_error_ns = 5'000'000;

  /// softirq-pending-at-idle: warning (else info) when a vector pending at idle entry waited
  /// this long after it, or was never processed in the trace.
  int64_t idle_pending_warning_ns = 1'000'000;

  /// softirq-ordering-stall: a vector raised while a lower one was in progress on the CPU
  /// counts as stalled when it waited this long (error past softirq_latency_max_error_ns).
  int64_t ordering_stall_ns = 1'000'000;

  /// napi-budget-exhausted: only for NAPI instances with at least this many polls.
  int64_t napi_min_polls = 100;
  /// napi-budget-exhausted: at this share of polls using the whole budget (0..1); a warning
  /// when part of the polling then ran in ksoftirqd, else information.
  double napi_exhausted_share = 0.25;
  /// napi-budget-exhausted: share of an instance's polls in ksoftirqd that counts as work
  /// moving there (0..1).
  double napi_ksoftirqd_share = 0.1;

  /// rt-wake-latency: warning when an RT thread's wakeup -> switch-in exceeds this.
  int64_t rt_wake_latency_warning_ns = 100'000;
  /// rt-wake-latency: error from this long.
  int64_t rt_wake_latency_error_ns = 1'000'000;

  /// softirq-starvation: warning when RT tasks held a CPU this long while a softirq raised
  /// there, or a woken ksoftirqd / NAPI / IRQ thread, waited.
  int64_t softirq_starvation_warning_ns = 1'000'000;
  /// softirq-starvation: error from this long.
  int64_t softirq_starvation_error_ns = 10'000'000;

  /// softirq-thread-starved: warning when ksoftirqd/N did not run once in the recording while
  /// softirq work waited on CPU N at least softirq_starvation_warning_ns and RT tasks held at
  /// least this share of the CPU (0..1).
  double softirq_thread_starved_rt_share = 0.5;

  /// The p99 warning limit of vector `vec`: its override, else softirq_latency_p99_warning_ns.
  int64_t SoftirqLatencyP99WarningNs(uint32_t vec) const;
  /// The max error limit of vector `vec`: its override, else softirq_latency_max_error_ns.
  int64_t SoftirqLatencyMaxErrorNs(uint32_t vec) const;
};

}  // namespace napiscope
