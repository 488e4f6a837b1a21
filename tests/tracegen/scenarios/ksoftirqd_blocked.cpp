// docs/definitions.md case 2 on PREEMPT_RT: ksoftirqd/0 blocked in D on the per-CPU softirq lock held
// by iperf3, iperf3 preempted by rcuc/0 in the middle of NET_RX, TIMER and SCHED waiting, and
// CPU0 entering idle with SCHED (0x80) still pending.
#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {

std::unique_ptr<Scenario> BuildKsoftirqdBlocked(nlohmann::json* facts) {
  constexpr TimestampNs T = 2'000'000'000;
  constexpr int32_t kIperf = 1500, kKsoftirqd = 15, kRcuc = 16;
  constexpr int kCpu = 0;
  constexpr int kBoostedPrio = KernelPrioOfRt(2);  // ksoftirqd/0 runs at SCHED_FIFO 2
  constexpr int kTimerVector = 236;                // x86 LOCAL_TIMER_VECTOR

  // Every timestamp the facts below refer to.
  constexpr TimestampNs kNetRxRaise = T + 1'000, kNetRxEntry = T + 2'000;
  constexpr TimestampNs kTimerRaise = T + 5'500;
  constexpr TimestampNs kKsoftirqdPreempts = T + 6'500, kBoost = T + 7'000;
  constexpr TimestampNs kKsoftirqdBlocks = T + 7'500, kSchedRaise = T + 8'000;
  constexpr TimestampNs kRcucPreempts = T + 10'000, kRcucSleeps = T + 3'000'000;
  constexpr TimestampNs kNetRxExit = T + 3'010'000, kDeboost = T + 3'011'000;
  constexpr TimestampNs kKsoftirqdWoken = T + 3'011'500, kKsoftirqdRuns = T + 3'013'000;
  constexpr TimestampNs kTimerEntry = T + 3'020'000, kIdle = T + 3'100'000;
  constexpr TimestampNs kTick = T + 3'990'000, kIdleEnds = T + 3'993'000;
  constexpr TimestampNs kSchedEntry = T + 3'998'000;

  auto s = std::make_unique<Scenario>(2);
  s->SetUname("Linux tracegen 6.18.0-rt1 #1 SMP PREEMPT_RT x86_64");
  s->Task(kKsoftirqd, "ksoftirqd/0", kBoostedPrio)
      .Task(kRcuc, "rcuc/0", KernelPrioOfRt(10))
      .Task(kIperf, "iperf3", 120)
      .Running(kCpu, kIperf);

  // iperf3 processes NET_RX at local_bh_enable and so holds CPU0's softirq lock.
  s->SoftirqRaise(kCpu, kNetRxRaise, kNetRx).Flags(kBhOff);
  s->SoftirqEntry(kCpu, kNetRxEntry, kNetRx);
  // A tick inside NET_RX raises TIMER and wakes ksoftirqd/0, which preempts iperf3.
  s->Vector(kCpu, T + 5'000, "local_timer_entry", kTimerVector);
  s->SoftirqRaise(kCpu, kTimerRaise, kTimer);
  s->Waking(kCpu, T + 5'700, kKsoftirqd, kCpu);
  s->Wakeup(kCpu, T + 5'800, kKsoftirqd, kCpu);
  s->Vector(kCpu, T + 6'000, "local_timer_exit", kTimerVector);
  s->Switch(kCpu, kKsoftirqdPreempts, kIperf, "R+", kKsoftirqd);
  // ksoftirqd/0 wants the softirq lock: priority inheritance boosts the holder, then it blocks.
  s->PiSetprio(kCpu, kBoost, kIperf, kBoostedPrio);
  s->Switch(kCpu, kKsoftirqdBlocks, kKsoftirqd, "D", kIperf);
  s->SoftirqRaise(kCpu, kSchedRaise, kSched);
  // Another tick wakes rcuc/0 (SCHED_FIFO 10), which preempts the boosted iperf3 in NET_RX.
  s->Vector(kCpu, T + 9'000, "local_timer_entry", kTimerVector);
  s->Waking(kCpu, T + 9'300, kRcuc, kCpu);
  s->Wakeup(kCpu, T + 9'400, kRcuc, kCpu);
  s->Vector(kCpu, T + 9'600, "local_timer_exit", kTimerVector);
  s->Switch(kCpu, kRcucPreempts, kIperf, "R+", kRcuc);
  s->Switch(kCpu, kRcucSleeps, kRcuc, "S", kIperf);
  // NET_RX ends after 3 ms; iperf3 drops the lock (deboost) and so wakes ksoftirqd/0.
  s->SoftirqExit(kCpu, kNetRxExit, kNetRx);
  s->PiSetprio(kCpu, kDeboost, kIperf, 120);
  s->Waking(kCpu, kKsoftirqdWoken, kKsoftirqd, kCpu);
  s->Wakeup(kCpu, T + 3'012'000, kKsoftirqd, kCpu);
  s->Switch(kCpu, kKsoftirqdRuns, kIperf, "R+", kKsoftirqd);
  // ksoftirqd/0 runs TIMER only and sleeps; iperf3 sleeps too and CPU0 idles, SCHED pending.
  s->SoftirqEntry(kCpu, kTimerEntry, kTimer);
  s->SoftirqExit(kCpu, T + 3'030'000, kTimer);
  s->Switch(kCpu, T + 3'031'000, kKsoftirqd, "S", kIperf);
  s->Switch(kCpu, kIdle, kIperf, "S", 0);
  // The next tick wakes ksoftirqd/0, which finally runs SCHED.
  s->Vector(kCpu, kTick, "local_timer_entry", kTimerVector);
  s->Waking(kCpu, kTick + 500, kKsoftirqd, kCpu);
  s->Wakeup(kCpu, kTick + 700, kKsoftirqd, kCpu);
  s->Vector(kCpu, kTick + 1'000, "local_timer_exit", kTimerVector);
  s->Switch(kCpu, kIdleEnds, 0, "R", kKsoftirqd);
  s->SoftirqEntry(kCpu, kSchedEntry, kSched);
  s->SoftirqExit(kCpu, T + 4'012'000, kSched);
  s->Switch(kCpu, T + 4'015'000, kKsoftirqd, "S", 0);

  (*facts)["preempt_rt"] = true;
  (*facts)["ksoftirqd_blocked"] = {{
      {"cpu", kCpu},
      {"pid", kKsoftirqd},
      {"comm", "ksoftirqd/0"},
      {"state", "D"},
      {"blocked_from_ns", kKsoftirqdBlocks},
      {"woken_at_ns", kKsoftirqdWoken},
      {"running_again_ns", kKsoftirqdRuns},
      {"blocked_ns", kKsoftirqdRuns - kKsoftirqdBlocks},
      {"waker_pid", kIperf},
      {"waker_comm", "iperf3"},
      {"lock_holder_pid", kIperf},
      {"lock_holder_preempted_by",
       {{"pid", kRcuc}, {"comm", "rcuc/0"}, {"from_ns", kRcucPreempts}, {"until_ns", kRcucSleeps}}},
      {"pending_at_block", 1 << kTimer},
      {"pending_at_running_again", (1 << kTimer) | (1 << kSched)},
      {"running_vector_at_block", kNetRx},
  }};
  (*facts)["pi_boosts"] = {{{"pid", kIperf},
                            {"comm", "iperf3"},
                            {"boosted_at_ns", kBoost},
                            {"by_pid", kKsoftirqd},
                            {"old_prio", 120},
                            {"new_prio", kBoostedPrio},
                            {"restored_at_ns", kDeboost}}};
  (*facts)["preempted_in_softirq"] = {{{"pid", kIperf},
                                       {"vec", kNetRx},
                                       {"at_ns", kKsoftirqdPreempts},
                                       {"by_pid", kKsoftirqd},
                                       {"resumed_ns", kKsoftirqdBlocks}},
                                      {{"pid", kIperf},
                                       {"vec", kNetRx},
                                       {"at_ns", kRcucPreempts},
                                       {"by_pid", kRcuc},
                                       {"resumed_ns", kRcucSleeps}}};
  (*facts)["softirq_raises"] = {{{"cpu", kCpu},
                                 {"vec", kNetRx},
                                 {"raise_ns", kNetRxRaise},
                                 {"entry_ns", kNetRxEntry},
                                 {"delay_ns", kNetRxEntry - kNetRxRaise},
                                 {"context", "task_bh_enable"},
                                 {"pid", kIperf}},
                                {{"cpu", kCpu},
                                 {"vec", kTimer},
                                 {"raise_ns", kTimerRaise},
                                 {"entry_ns", kTimerEntry},
                                 {"delay_ns", kTimerEntry - kTimerRaise},
                                 {"context", "ksoftirqd"},
                                 {"pid", kKsoftirqd}},
                                {{"cpu", kCpu},
                                 {"vec", kSched},
                                 {"raise_ns", kSchedRaise},
                                 {"entry_ns", kSchedEntry},
                                 {"delay_ns", kSchedEntry - kSchedRaise},
                                 {"context", "ksoftirqd"},
                                 {"pid", kKsoftirqd}}};
  (*facts)["softirq_latency"] = {
      {{"cpu", kCpu}, {"vec", kTimer}, {"count", 1}, {"max_ns", kTimerEntry - kTimerRaise}},
      {{"cpu", kCpu}, {"vec", kNetRx}, {"count", 1}, {"max_ns", kNetRxEntry - kNetRxRaise}},
      {{"cpu", kCpu}, {"vec", kSched}, {"count", 1}, {"max_ns", kSchedEntry - kSchedRaise}}};
  (*facts)["idle_with_pending"] = {{{"cpu", kCpu},
                                    {"idle_from_ns", kIdle},
                                    {"idle_until_ns", kIdleEnds},
                                    {"pending_mask", 1 << kSched},
                                    {"prev_pid", kIperf}}};
  return s;
}

}  // namespace napiscope::tracegen
