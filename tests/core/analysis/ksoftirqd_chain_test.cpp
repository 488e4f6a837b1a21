// The ksoftirqd case of docs/definitions.md on PREEMPT_RT, built by hand: iperf3 is inside NET_RX when
// rcuc/0 preempts it; the timer raises TIMER and SCHED; ksoftirqd/0 blocks in D on the softirq
// lock iperf3 holds; iperf3 finishes NET_RX and wakes ksoftirqd, but the CPU goes idle with
// SCHED still pending, and SCHED runs at the next tick, about 4 ms after it was raised.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/idle_pending.h"
#include "analysis/ksoftirqd_blocked.h"
#include "analysis/scheduling_findings.h"
#include "analysis/softirq_latency.h"
#include "napiscope/producers.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 812;
constexpr int32_t kRcuc = 11;
constexpr int32_t kKsoftirqd = 12;
constexpr TimestampNs kUs = 1000;

EventBuilder SoftirqLockScenario() {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3", 120).Task(kRcuc, "rcuc/0", 98).Task(kKsoftirqd, "ksoftirqd/0", 120);
  b.Other(0, 0, kIperf, "x")
      .SoftirqEntry(0, 1000 * kUs, kIperf, kNetRx)
      .Waking(0, 1400 * kUs, kIperf, kRcuc, 0)
      .Switch(0, 1500 * kUs, kIperf, kStatePreempted, kRcuc)
      .VectorEntry(0, 1590 * kUs, kRcuc, "local_timer", 236)
      .Raise(0, 1600 * kUs, kRcuc, kTimer)
      .Raise(0, 1601 * kUs, kRcuc, kSched)
      .Waking(0, 1605 * kUs, kRcuc, kKsoftirqd, 0)
      .VectorExit(0, 1610 * kUs, kRcuc, "local_timer", 236)
      .Switch(0, 1700 * kUs, kRcuc, kStateInterruptible, kKsoftirqd)
      .Switch(0, 1750 * kUs, kKsoftirqd, kStateUninterruptible, kIperf)
      .SoftirqExit(0, 2000 * kUs, kIperf, kNetRx)
      .Waking(0, 2010 * kUs, kIperf, kKsoftirqd, 0)
      .Switch(0, 2020 * kUs, kIperf, 0, kKsoftirqd)
      .SoftirqEntry(0, 2030 * kUs, kKsoftirqd, kTimer)
      .SoftirqExit(0, 2040 * kUs, kKsoftirqd, kTimer)
      .Switch(0, 2100 * kUs, kKsoftirqd, kStateInterruptible, 0)  // idle with SCHED pending
      .VectorEntry(0, 5600 * kUs, 0, "local_timer", 236)
      .VectorExit(0, 5605 * kUs, 0, "local_timer", 236)
      .SoftirqEntry(0, 5610 * kUs, 0, kSched)
      .SoftirqExit(0, 5615 * kUs, 0, kSched);
  return b;
}

// The scenario through the tracker, the producers and a KsoftirqdBlocked keeping `max_rows`.
struct BlockedRun {
  explicit BlockedRun(size_t max_rows)
      : facts(&tracker), blocked(&tracker, &facts, AnalysisWindow{}, max_rows) {
    facts.AddListener(&blocked);
    FanoutSink fanout;
    fanout.Add(&tracker);
    fanout.Add(&facts);
    fanout.Add(&blocked);
    SoftirqLockScenario().Play(fanout);
  }
  ContextTracker tracker;
  FactProducers facts;
  internal::KsoftirqdBlocked blocked;
};

TEST(KsoftirqdBlocked, FindsTheChainBehindTheBlockedKsoftirqd) {
  BlockedRun run(1000);
  const internal::KsoftirqdBlocked& blocked = run.blocked;
  ASSERT_EQ(blocked.rows().size(), 2u);
  const KsoftirqdBlockedRow& row = blocked.rows()[0];
  EXPECT_EQ(row.cpu, 0);
  EXPECT_EQ(row.pid, kKsoftirqd);
  EXPECT_EQ(row.comm, "ksoftirqd/0");
  EXPECT_EQ(row.state, "D");
  EXPECT_EQ(row.start_ns, 1750 * kUs);
  EXPECT_EQ(row.end_ns, 2010 * kUs);
  EXPECT_EQ(row.duration_ns, 260 * kUs);
  EXPECT_TRUE(row.end_known);
  EXPECT_EQ(row.pending_mask_start, (1u << kTimer) | (1u << kSched));
  EXPECT_EQ(row.pending_mask_end, (1u << kTimer) | (1u << kSched));
  EXPECT_EQ(row.waker_pid, kIperf);
  EXPECT_EQ(row.waker_comm, "iperf3");
  EXPECT_EQ(row.waker_cpu, 0);
  EXPECT_EQ(row.waker_context, "task");
  ASSERT_EQ(row.chain.size(), 2u);
  EXPECT_EQ(row.chain[0].pid, kIperf);
  EXPECT_EQ(row.chain[0].since_ns, 1000 * kUs);
  EXPECT_THAT(row.chain[0].relation, ::testing::StartsWith("inside NET_RX softirq on CPU0"));
  EXPECT_EQ(row.chain[1].pid, kRcuc);
  EXPECT_EQ(row.chain[1].comm, "rcuc/0");
  EXPECT_EQ(row.chain[1].since_ns, 1500 * kUs);
  EXPECT_THAT(row.chain[1].relation, ::testing::StartsWith("preempted iperf3 on CPU0"));
  // From the block at 1750 to the wakeup at 2010 iperf3 ran on CPU0.
  ASSERT_EQ(row.cpu_held_by.size(), 1u);
  EXPECT_EQ(row.cpu_held_by[0].pid, kIperf);
  EXPECT_EQ(row.cpu_held_by[0].time_ns, 260 * kUs);

  // Then it went to sleep (S) with SCHED still pending, and nothing woke it before the end.
  const KsoftirqdBlockedRow& asleep = blocked.rows()[1];
  EXPECT_EQ(asleep.state, "S");
  EXPECT_EQ(asleep.start_ns, 2100 * kUs);
  EXPECT_EQ(asleep.pending_mask_start, 1u << kSched);
  EXPECT_FALSE(asleep.end_known);
  EXPECT_EQ(asleep.end_ns, 5615 * kUs);
  EXPECT_EQ(asleep.waker_pid, -1);
  EXPECT_TRUE(asleep.chain.empty());
  ASSERT_EQ(asleep.cpu_held_by.size(), 1u);  // idle from 2100 to the end of the trace
  EXPECT_EQ(asleep.cpu_held_by[0].pid, 0);
  EXPECT_EQ(asleep.cpu_held_by[0].time_ns, 3515 * kUs);

  // The finding names ksoftirqd and, for viewers, the task that woke it.
  Thresholds thresholds;
  thresholds.ksoftirqd_blocked_warning_ns = 100 * kUs;
  std::vector<Finding> findings;
  internal::KsoftirqdBlockedFindings({row}, thresholds, &findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].pid, kKsoftirqd);
  EXPECT_EQ(TasksNamed(findings[0]), (std::vector<int32_t>{kKsoftirqd, kIperf}));
}

TEST(KsoftirqdBlocked, KeepsTheFirstMaxRowsAndCountsTheRest) {
  BlockedRun run(1);
  ASSERT_EQ(run.blocked.rows().size(), 1u);
  EXPECT_EQ(run.blocked.rows()[0].start_ns, 1750 * kUs);
  EXPECT_EQ(run.blocked.overflow(), 1);
}

TEST(IdlePending, RecordsIdleWithSchedPendingAndTheOrderingStall) {
  EventBuilder b = SoftirqLockScenario();
  ContextTracker tracker;
  FactProducers facts(&tracker);
  internal::SoftirqLatency latency(AnalysisWindow{});
  internal::IdlePending idle(&tracker, &facts, AnalysisWindow{}, 1000 * kUs, 1000, &latency);
  tracker.AddListener(&facts);
  tracker.AddListener(&latency);
  facts.AddListener(&latency);
  facts.AddListener(&idle);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&facts);
  fanout.Add(&idle);
  b.Play(fanout);
  ASSERT_EQ(idle.idle_rows().size(), 1u);
  const IdleWithPendingRow& row = idle.idle_rows()[0];
  EXPECT_EQ(row.cpu, 0);
  EXPECT_EQ(row.ts_ns, 2100 * kUs);
  EXPECT_EQ(row.pending_mask, 0x80u);  // the kernel would print "local_softirq_pending 80"
  EXPECT_EQ(row.processed_after_ns, (std::map<uint32_t, int64_t>{{kSched, 3510 * kUs}}));

  // SCHED (7) was raised while NET_RX (3) was in progress in the preempted iperf3; TIMER (1)
  // is below NET_RX and cannot be held back by it.
  ASSERT_EQ(idle.stall_rows().size(), 1u);
  const SoftirqOrderingStallRow& stall = idle.stall_rows()[0];
  EXPECT_EQ(stall.vec, static_cast<uint32_t>(kSched));
  EXPECT_EQ(stall.raise_ns, 1601 * kUs);
  EXPECT_EQ(stall.entry_ns, 5610 * kUs);
  EXPECT_EQ(stall.wait_ns, 4009 * kUs);
  EXPECT_EQ(stall.blocking_vec, static_cast<uint32_t>(kNetRx));
  EXPECT_EQ(stall.blocking_pid, kIperf);
  EXPECT_EQ(stall.blocking_comm, "iperf3");
  EXPECT_EQ(stall.blocking_site, "task_bh_enable");
  EXPECT_TRUE(stall.blocking_preempted);
  // Of the 4.01 ms, NET_RX held the CPU only while iperf3 ran inside it (1750..2000); the CPU
  // was idle 3.5 ms of it with SCHED pending.
  EXPECT_EQ(stall.blocking_held_ns, 250 * kUs);
  ASSERT_FALSE(stall.blame.empty());
  EXPECT_EQ(stall.blame.front().pid, 0);
  EXPECT_EQ(stall.blame.front().time_ns, 3505 * kUs);

  // So it is no ordering stall at the default threshold (the idle finding names the wait) ...
  std::vector<Finding> findings;
  internal::OrderingStallFindings({stall}, Thresholds{}, &findings);
  EXPECT_TRUE(findings.empty());
  // ... but one at 200 us, naming the vector held back and the task whose NET_RX held it.
  Thresholds low;
  low.ordering_stall_ns = 200 * kUs;
  internal::OrderingStallFindings({stall}, low, &findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].vec, kSched);
  EXPECT_EQ(findings[0].evidence["blocking_held_ns"], 250 * kUs);
  EXPECT_EQ(TasksNamed(findings[0]), std::vector<int32_t>{kIperf});
}

TEST(IdlePending, NoRowsWithoutThePattern) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x")
      .Raise(0, 100, kIperf, kNetRx)
      .SoftirqEntry(0, 150, kIperf, kNetRx)
      .Raise(0, 160, kIperf, kSched)  // raised inside NET_RX, served right after: no stall
      .SoftirqExit(0, 200, kIperf, kNetRx)
      .SoftirqEntry(0, 200, kIperf, kSched)
      .SoftirqExit(0, 210, kIperf, kSched)
      .Switch(0, 300, kIperf, kStateInterruptible, 0);
  ContextTracker tracker;
  FactProducers facts(&tracker);
  internal::IdlePending idle(&tracker, &facts, AnalysisWindow{}, 1000 * kUs, 1000);
  facts.AddListener(&idle);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&facts);
  fanout.Add(&idle);
  b.Play(fanout);
  EXPECT_TRUE(idle.idle_rows().empty());
  EXPECT_TRUE(idle.stall_rows().empty());
}

// Issue 63, item 5: pid 0 on CPU N is swapper/N in every sentence, whatever the comm cache
// says (here swapper/1, the name a trace recorded on CPU1 first gives pid 0). Idle on CPU0
// wakes ksoftirqd/0 ("woken by swapper/0", not "swapper/1 (pid 0) on CPU0"), and SCHED waits
// behind NET_RX in progress in CPU0's idle task.
TEST(IdleTask, IsSwapperOfItsCpuInTheRowsThatNameIt) {
  EventBuilder b(2);
  b.Task(0, "swapper/1").Task(kKsoftirqd, "ksoftirqd/0", 120);
  b.Other(0, 0, kKsoftirqd, "x")
      .Raise(0, 100 * kUs, kKsoftirqd, kTimer)
      .Switch(0, 200 * kUs, kKsoftirqd, kStateUninterruptible, 0)
      .Waking(0, 300 * kUs, 0, kKsoftirqd, 0)
      .SoftirqEntry(0, 1000 * kUs, 0, kNetRx)
      .VectorEntry(0, 1100 * kUs, 0, "local_timer", 236)
      .Raise(0, 1101 * kUs, 0, kSched)
      .VectorExit(0, 1105 * kUs, 0, "local_timer", 236)
      .SoftirqExit(0, 3000 * kUs, 0, kNetRx)
      .SoftirqEntry(0, 3001 * kUs, 0, kSched)
      .SoftirqExit(0, 3010 * kUs, 0, kSched);
  ContextTracker tracker;
  FactProducers facts(&tracker);
  internal::KsoftirqdBlocked blocked(&tracker, &facts, AnalysisWindow{}, 1000);
  internal::IdlePending idle(&tracker, &facts, AnalysisWindow{}, 1000 * kUs, 1000);
  facts.AddListener(&blocked);
  facts.AddListener(&idle);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&facts);
  fanout.Add(&blocked);
  fanout.Add(&idle);
  b.Play(fanout);
  ASSERT_EQ(blocked.rows().size(), 1u);
  EXPECT_EQ(blocked.rows()[0].waker_pid, 0);
  EXPECT_EQ(blocked.rows()[0].waker_cpu, 0);
  EXPECT_EQ(blocked.rows()[0].waker_comm, "swapper/0");
  ASSERT_EQ(idle.stall_rows().size(), 1u);
  EXPECT_EQ(idle.stall_rows()[0].blocking_pid, 0);
  EXPECT_EQ(idle.stall_rows()[0].blocking_comm, "swapper/0");
  EXPECT_EQ(TaskNameOnCpu(b.context().tasks, b.context().strings, 0, 4, 0), "swapper/4");
  EXPECT_EQ(TaskNameOnCpu(b.context().tasks, b.context().strings, kKsoftirqd, 4, 0),
            "ksoftirqd/0");
}

}  // namespace
}  // namespace napiscope
