// Wake latency of RT and softirq-serving threads, and what held the CPU, on hand-made traces.
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/wake_latency.h"
#include "napiscope/analysis_session.h"
#include "napiscope/producers.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100, kCyclictest = 300, kRcuc = 16, kKsoftirqd1 = 22, kRtApp = 400;
constexpr int16_t kRt98 = 1, kRt99 = 0, kRt89 = 10;

std::vector<WakeLatencyRow> Analyze(EventBuilder& b) {
  ContextTracker tracker;
  FactProducers facts(&tracker);
  internal::WakeLatency wake(&tracker, AnalysisWindow{});
  tracker.AddListener(&wake);
  facts.AddListener(&wake);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&facts);
  b.Play(fanout);
  wake.OnEnd();
  return wake.Rows(b.context());
}

// cyclictest (RT 98) on CPU1 woken three times: behind a non-preemptible iperf3, a hard IRQ
// and its NET_RX; behind iperf3 alone; behind rcuc/1 (RT 99).
EventBuilder ThreeWakeups() {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", kRt98).Task(kRcuc, "rcuc/1", kRt99);
  b.Switch(0, 100, 0, kStatePreempted, 0).Switch(1, 100, 0, kStatePreempted, kIperf);
  b.Waking(0, 1000, 0, kCyclictest, 1);
  b.IrqEntry(1, 1500, kIperf, 30, "eth0").Raise(1, 1600, kIperf, kNetRx);
  b.IrqExit(1, 1700, kIperf, 30).SoftirqEntry(1, 1700, kIperf, kNetRx);
  b.SoftirqExit(1, 2500, kIperf, kNetRx);
  b.Switch(1, 2600, kIperf, kStatePreempted, kCyclictest);
  b.Switch(1, 3000, kCyclictest, kStateInterruptible, kIperf);
  b.Waking(1, 4000, kIperf, kCyclictest, 1).Switch(1, 4050, kIperf, kStatePreempted, kCyclictest);
  b.Waking(1, 4200, kCyclictest, kCyclictest, 1);  // already running: nothing to pair
  b.Switch(1, 4500, kCyclictest, kStateInterruptible, kIperf);
  b.Waking(1, 5000, kIperf, kRcuc, 1).Switch(1, 5010, kIperf, kStatePreempted, kRcuc);
  b.Waking(1, 5100, kRcuc, kCyclictest, 1);
  b.Switch(1, 5400, kRcuc, kStateInterruptible, kCyclictest);
  return b;
}

TEST(WakeLatency, MeasuresWakeupsOfRtThreadsAndBlamesWhatHeldTheCpu) {
  EventBuilder b = ThreeWakeups();
  std::vector<WakeLatencyRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 2u);  // rcuc/1 and cyclictest; iperf3 is neither RT nor a softirq thread
  const WakeLatencyRow& rcuc = rows[0];
  EXPECT_EQ(rcuc.pid, kRcuc);
  EXPECT_EQ(rcuc.latency.count, 1);
  EXPECT_EQ(rcuc.latency.max_ns, 10);

  const WakeLatencyRow& cyclictest = rows[1];
  EXPECT_EQ(cyclictest.pid, kCyclictest);
  EXPECT_EQ(cyclictest.comm, "cyclictest");
  EXPECT_EQ(cyclictest.cpu, 1);
  EXPECT_EQ(cyclictest.policy, SchedPolicyClass::kRealtime);
  EXPECT_EQ(cyclictest.prio, kRt98);
  EXPECT_EQ(cyclictest.latency.count, 3);
  EXPECT_EQ(cyclictest.latency.min_ns, 50);
  EXPECT_EQ(cyclictest.latency.p50_ns, 300);
  EXPECT_EQ(cyclictest.latency.max_ns, 1600);
  EXPECT_EQ(cyclictest.latency.max_at_ns, 1000);
  ASSERT_EQ(cyclictest.worst.size(), 3u);

  const WakeLatencySample& worst = cyclictest.worst[0];
  EXPECT_EQ(worst.waking_ns, 1000);
  EXPECT_EQ(worst.switch_in_ns, 2600);
  EXPECT_EQ(worst.waker_cpu, 0);
  EXPECT_EQ(worst.unknown_ns, 0);
  ASSERT_EQ(worst.blame.size(), 3u);
  EXPECT_EQ(worst.blame[0].kind, ContextKind::kSoftirq);
  EXPECT_EQ(worst.blame[0].vec, kNetRx);
  EXPECT_EQ(worst.blame[0].time_ns, 800);
  EXPECT_EQ(WakeBlameRole(worst.blame[0], kRt98), "softirq");
  EXPECT_EQ(worst.blame[1].pid, kIperf);
  EXPECT_EQ(worst.blame[1].time_ns, 600);  // 1000-1500 and 2500-2600
  EXPECT_EQ(WakeBlameRole(worst.blame[1], kRt98), "lower_prio");
  EXPECT_EQ(worst.blame[2].kind, ContextKind::kHardirq);
  EXPECT_EQ(worst.blame[2].irq, (InterruptId{30, false}));
  EXPECT_EQ(worst.blame[2].time_ns, 200);

  EXPECT_EQ(cyclictest.worst[1].latency_ns, 300);
  ASSERT_EQ(cyclictest.worst[1].blame.size(), 1u);
  EXPECT_EQ(cyclictest.worst[1].blame[0].pid, kRcuc);
  EXPECT_EQ(WakeBlameRole(cyclictest.worst[1].blame[0], kRt98), "higher_prio");
  EXPECT_EQ(cyclictest.worst[2].latency_ns, 50);
}

TEST(WakeLatency, FollowsAMigrationToTheCpuThatRunsTheThread) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", kRt98).Task(kRtApp, "rt_app", kRt89);
  b.Switch(0, 100, 0, kStatePreempted, kRtApp).Switch(1, 100, 0, kStatePreempted, kIperf);
  b.Waking(1, 1000, kIperf, kCyclictest, 0);
  b.Migrate(1, 1400, kIperf, kCyclictest, 0, 1);
  b.Switch(1, 1500, kIperf, kStatePreempted, kCyclictest);
  b.Other(0, 2000, kRtApp, "x");  // CPU0's segment up to here arrives with its next event
  std::vector<WakeLatencyRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cpu, 1);
  ASSERT_EQ(rows[0].worst.size(), 1u);
  const WakeLatencySample& sample = rows[0].worst[0];
  EXPECT_EQ(sample.latency_ns, 500);
  ASSERT_EQ(sample.blame.size(), 2u);
  EXPECT_EQ(sample.blame[0].pid, kRtApp);  // CPU0 until the migration: 400
  EXPECT_EQ(sample.blame[0].time_ns, 400);
  EXPECT_EQ(sample.blame[1].pid, kIperf);  // then CPU1: 100
  EXPECT_EQ(sample.blame[1].time_ns, 100);
}

TEST(WakeLatency, LostEventsOnTheQueueCpuDropTheWakeup) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", kRt98);
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Waking(0, 1000, kIperf, kCyclictest, 0);
  b.Missed(0, 2000, 10);
  b.Switch(0, 3000, kIperf, kStatePreempted, kCyclictest);
  std::vector<WakeLatencyRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].latency.count, 0);
  EXPECT_EQ(rows[0].dropped, 1);
}

// ksoftirqd/1 and NET_RX wait 2 ms while an RT application holds CPU1: softirq starvation,
// and no rt-wake-latency finding for a normal-priority ksoftirqd.
TEST(WakeLatency, SoftirqStarvationBehindAnRtTaskIsAFinding) {
  EventBuilder b(2);
  b.Task(kRtApp, "rt_app", kRt89).Task(kKsoftirqd1, "ksoftirqd/1");
  b.Switch(0, 100, 0, kStatePreempted, 0).Switch(1, 100, 0, kStatePreempted, kRtApp);
  b.Raise(1, 10'000, kRtApp, kNetRx).Waking(1, 10'000, kRtApp, kKsoftirqd1, 1);
  b.Switch(1, 2'010'000, kRtApp, kStateInterruptible, kKsoftirqd1);
  b.SoftirqEntry(1, 2'020'000, kKsoftirqd1, kNetRx).SoftirqExit(1, 2'030'000, kKsoftirqd1, kNetRx);
  AnalysisPipeline pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  ASSERT_EQ(report.rt_wake_latency.size(), 1u);
  EXPECT_EQ(report.rt_wake_latency[0].policy, SchedPolicyClass::kNormal);
  EXPECT_EQ(report.rt_wake_latency[0].latency.max_ns, 2'000'000);
  std::vector<const Finding*> starvation;
  for (const Finding& f : report.findings) {
    EXPECT_NE(f.rule, "rt-wake-latency");
    if (f.rule == "softirq-starvation") starvation.push_back(&f);
  }
  ASSERT_EQ(starvation.size(), 2u);
  for (const Finding* f : starvation) {
    EXPECT_EQ(f->severity, Severity::kWarning);
    EXPECT_EQ(f->cpu, 1);
    EXPECT_EQ(f->evidence["rt_tasks_ns"], 2'000'000);
    EXPECT_THAT(f->summary, ::testing::HasSubstr("rt_app (pid 400, RT 89) 2.00 ms"));
  }
}

TEST(WakeLatency, RtWakeLatencyFindingNamesTheMainHolder) {
  EventBuilder b = ThreeWakeups();
  AnalysisOptions options;
  options.thresholds.rt_wake_latency_warning_ns = 1000;
  AnalysisPipeline pipeline{options};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  std::vector<const Finding*> late;
  for (const Finding& f : report.findings) {
    if (f.rule == "rt-wake-latency") late.push_back(&f);
  }
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0]->severity, Severity::kWarning);
  EXPECT_EQ(late[0]->start_ns, 1000);
  EXPECT_EQ(late[0]->end_ns, 2600);
  EXPECT_THAT(late[0]->summary, ::testing::HasSubstr("softirq NET_RX 800 ns (50%)"));
  EXPECT_THAT(late[0]->summary, ::testing::HasSubstr("Softirq work ran ahead of it on CPU1"));
}

// The rt-wake-latency finding of the trace `b` builds, with a 500 ns warning threshold.
std::optional<Finding> LateWakeFinding(EventBuilder& b) {
  AnalysisOptions options;
  options.thresholds.rt_wake_latency_warning_ns = 500;
  AnalysisPipeline pipeline{options};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  for (Finding& f : report.findings) {
    if (f.rule == "rt-wake-latency") return std::move(f);
  }
  return std::nullopt;
}

// The CPU held by a hard IRQ: a device IRQ's can move (/proc/irq/N); an x86 vector of the same
// number is per CPU and cannot (the advice said "move it with /proc/irq/236" for the local
// timer on the real veth trace).
TEST(WakeLatency, AnX86VectorHoldingTheCpuIsNotToldToMoveWithProcIrq) {
  for (bool vector : {false, true}) {
    EventBuilder b(2);
    b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", kRt98);
    b.Switch(1, 100, 0, kStatePreempted, kIperf);
    b.IrqEntry(0, 200, 0, 30, "ahci").IrqExit(0, 210, 0, 30);  // irq events were recorded
    b.Waking(1, 1000, kIperf, kCyclictest, 1);
    if (vector) {
      b.VectorEntry(1, 1010, kIperf, "local_timer", 236);
      b.VectorExit(1, 2010, kIperf, "local_timer", 236);
    } else {
      b.IrqEntry(1, 1010, kIperf, 236, "eth1-rx-3").IrqExit(1, 2010, kIperf, 236);
    }
    b.Switch(1, 2020, kIperf, kStatePreempted, kCyclictest);
    std::optional<Finding> late = LateWakeFinding(b);
    ASSERT_TRUE(late) << vector;
    if (vector) {
      EXPECT_THAT(late->summary, ::testing::HasSubstr("x86 vector local_timer (236) 1.0 us"));
      EXPECT_THAT(late->summary, ::testing::HasSubstr("a per-CPU interrupt that /proc/irq cannot "
                                                      "move: timer callbacks ran in it"));
      EXPECT_THAT(late->summary, ::testing::Not(::testing::HasSubstr("smp_affinity")));
    } else {
      EXPECT_THAT(late->summary, ::testing::HasSubstr("hard IRQ eth1-rx-3 (236) 1.0 us"));
      EXPECT_THAT(late->summary,
                  ::testing::HasSubstr("move it with /proc/irq/236/smp_affinity_list"));
    }
  }
}

// The advice follows the softirq vector that held the CPU: network advice for NET_RX, the
// timers for HRTIMER (the real veth trace's migration/0 was told to move network IRQs while
// softirq HRTIMER held its CPU), the raises for any other vector.
TEST(WakeLatency, ASoftirqHoldingTheCpuGetsTheAdviceOfItsVector) {
  struct Case {
    SoftirqVector vec;
    const char* advice;
  };
  for (const Case& c : {Case{kNetRx, "keep network IRQs (and with them NET_RX) off this CPU"},
                        Case{kHrtimer,
                             "Timer callbacks ran ahead of it on CPU1 in softirq "
                             "HRTIMER: timer:hrtimer_expire_entry names them"},
                        Case{kBlock, "Softirq BLOCK ran ahead of it on CPU1: softirq_raise"}}) {
    EventBuilder b(2);
    b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", kRt98);
    b.Switch(1, 100, 0, kStatePreempted, kIperf);
    b.Waking(1, 1000, kIperf, kCyclictest, 1);
    b.Raise(1, 1005, kIperf, c.vec).SoftirqEntry(1, 1010, kIperf, c.vec);
    b.SoftirqExit(1, 2010, kIperf, c.vec);
    b.Switch(1, 2020, kIperf, kStatePreempted, kCyclictest);
    std::optional<Finding> late = LateWakeFinding(b);
    ASSERT_TRUE(late) << c.vec;
    EXPECT_THAT(late->summary, ::testing::HasSubstr(c.advice)) << c.vec;
    if (c.vec != kNetRx) {
      EXPECT_THAT(late->summary, ::testing::Not(::testing::HasSubstr("network IRQs"))) << c.vec;
    }
  }
}

}  // namespace
}  // namespace napiscope
