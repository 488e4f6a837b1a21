// The network path's priority table built from the fact producers' pairings: a NAPI thread's
// wake-to-run wait that moves to another CPU is paired where it ran, and the RT task that held
// that CPU while the work waited is counted from the move on.
#include <algorithm>

#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100, kApp = 101, kNapiThread = 600, kRtHog = 700;

// IRQ 41 fires on CPU1 and wakes napi/eth1-8194 (chrt 50) queued on CPU1; the wait moves to
// CPU0 at 1100, where rt_hog (chrt 80) runs until 5000; the NAPI thread then polls there.
EventBuilder MovedNapiWakeup() {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kApp, "app");
  b.Task(kNapiThread, "napi/eth1-8194", 49).Task(kRtHog, "rt_hog", 19);
  b.Switch(0, 100, 0, kStatePreempted, kRtHog).Switch(1, 100, 0, kStatePreempted, kIperf);
  b.IrqEntry(1, 1000, kIperf, 41, "eth1").Waking(1, 1001, kIperf, kNapiThread, 1);
  b.IrqExit(1, 1005, kIperf, 41);
  b.Migrate(1, 1100, kIperf, kNapiThread, 1, 0);
  b.Switch(0, 5001, kRtHog, kStatePreempted, kNapiThread);
  b.NapiPoll(0, 5500, kNapiThread, 0xffff1000, "eth1", 3, 64);
  b.Switch(0, 6000, kNapiThread, kStateInterruptible, kRtHog);
  b.Switch(1, 7000, kIperf, kStatePreempted, kApp);
  return b;
}

TEST(NetPathFromFacts, AMovedNapiWakeupIsPairedWhereItRanAndCountsTheRtTaskThere) {
  EventBuilder b = MovedNapiWakeup();
  AnalysisPipeline pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  ASSERT_EQ(report.net_path.size(), 1u);
  const NetPathRow& row = report.net_path[0];
  EXPECT_EQ(row.irq, (InterruptId{41, false}));
  EXPECT_EQ(row.handler, "eth1");
  EXPECT_EQ(row.hardirqs, 1);
  ASSERT_EQ(row.runners.size(), 1u);
  EXPECT_EQ(row.runners[0].pid, kNapiThread);
  EXPECT_EQ(row.runners[0].rt_priority, 50);
  EXPECT_EQ(row.runners[0].runs, 1);
  EXPECT_EQ(row.runners[0].cpus, std::vector<int>{0});
  EXPECT_EQ(row.waits, 1);
  EXPECT_EQ(row.waited_ns, 5001 - 1001);
  auto hog = std::find_if(row.rt_tasks.begin(), row.rt_tasks.end(),
                          [](const NetPathRtTask& t) { return t.pid == kRtHog; });
  ASSERT_NE(hog, row.rt_tasks.end());
  EXPECT_EQ(hog->rt_priority, 80);
  EXPECT_EQ(hog->position, "above");
  EXPECT_EQ(hog->held_while_waiting_ns, 5001 - 1100);  // from the move to CPU0 on
  EXPECT_TRUE(row.starved);
}

// RPS steers packets to CPU1's backlog with an IPI: NET_RX raised inside the x86 vector
// call_function_single (251) and run at its exit. Its chain names the vector (it read
// "IRQ 251  (CPU )" with no name and no hard IRQs counted) and, since a vector fires for much
// besides the network, lists the CPUs it made NET_RX work on and its entries there.
TEST(NetPathFromFacts, ANetRxRaisedInAnX86VectorIsThatVectorsChain) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3");
  b.Switch(1, 100, 0, kStatePreempted, kIperf);
  // The events the analysis needs: a device IRQ and a wakeup (neither raises NET_RX).
  b.IrqEntry(0, 200, 0, 30, "ahci").IrqExit(0, 210, 0, 30).Waking(0, 220, 0, kIperf, 1);
  // The vector fires on CPU0 too, for something else: not the network's.
  b.VectorEntry(0, 500, 0, "call_function_single", 251);
  b.VectorExit(0, 505, 0, "call_function_single", 251);
  for (TimestampNs at : {1000, 3000}) {
    b.VectorEntry(1, at, kIperf, "call_function_single", 251);
    b.Raise(1, at + 5, kIperf, kNetRx);
    b.VectorExit(1, at + 10, kIperf, "call_function_single", 251);
    b.SoftirqEntry(1, at + 11, kIperf, kNetRx).SoftirqExit(1, at + 40, kIperf, kNetRx);
  }
  AnalysisPipeline pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  ASSERT_EQ(report.net_path.size(), 1u);
  const NetPathRow& row = report.net_path[0];
  EXPECT_EQ(row.irq, (InterruptId{251, true}));
  EXPECT_EQ(row.handler, "call_function_single");
  EXPECT_EQ(row.irq_cpus, std::vector<int>{1});
  EXPECT_EQ(row.hardirqs, 2);
  ASSERT_EQ(row.runners.size(), 1u);
  EXPECT_EQ(row.runners[0].comm, "(hard-IRQ exit)");
  EXPECT_EQ(row.runners[0].runs, 2);
  EXPECT_EQ(row.waits, 2);
  EXPECT_EQ(row.waited_ns, 2 * 6);
}

// The local timer's vector (236) wakes napi/eth1-8194 on CPU1 at 1001; it runs at 1200.
void TimerWakesTheNapiThreadOnCpu1(EventBuilder& b) {
  b.VectorEntry(1, 1000, kIperf, "local_timer", 236).Waking(1, 1001, kIperf, kNapiThread, 1);
  b.VectorExit(1, 1005, kIperf, "local_timer", 236);
  b.Switch(1, 1200, kIperf, kStatePreempted, kNapiThread);
  b.NapiPoll(1, 1300, kNapiThread, 0xffff1000, "eth1", 3, 64);
  b.Switch(1, 1400, kNapiThread, kStateInterruptible, kIperf);
}

Report Analyze(EventBuilder& b) {
  AnalysisPipeline pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  return pipeline.Finish(b.context());
}

// Threaded NAPI with a watchdog timer (napi_defer_hard_irqs): the local timer's vector wakes
// the NAPI kthread on CPU1; it fires on CPU0 too, for other timers.
TEST(NetPathFromFacts, AVectorThatWakesANapiThreadListsTheCpuItWokeItFrom) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kNapiThread, "napi/eth1-8194", 49);
  b.Switch(1, 100, 0, kStatePreempted, kIperf);
  b.IrqEntry(0, 200, 0, 30, "ahci").IrqExit(0, 210, 0, 30);
  b.VectorEntry(0, 500, 0, "local_timer", 236).VectorExit(0, 505, 0, "local_timer", 236);
  TimerWakesTheNapiThreadOnCpu1(b);
  Report report = Analyze(b);
  ASSERT_EQ(report.net_path.size(), 1u);
  const NetPathRow& row = report.net_path[0];
  EXPECT_EQ(row.irq, (InterruptId{236, true}));
  EXPECT_EQ(row.handler, "local_timer");
  EXPECT_EQ(row.irq_cpus, std::vector<int>{1});
  EXPECT_EQ(row.hardirqs, 1);
  ASSERT_EQ(row.runners.size(), 1u);
  EXPECT_EQ(row.runners[0].pid, kNapiThread);
  EXPECT_EQ(row.waits, 1);
  EXPECT_EQ(row.waited_ns, 1200 - 1001);
}

// On a large x86 server a NIC queue's IRQ can be 236, the local timer's vector number: the two
// are different interrupts and get a chain each (they shared one, the NIC's CPUs and the
// timer's entries added together, under whichever name came last).
TEST(NetPathFromFacts, ADeviceIrqAndAnX86VectorOfOneNumberAreTwoChains) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kNapiThread, "napi/eth1-8194", 49);
  b.Switch(1, 100, 0, kStatePreempted, kIperf);
  b.IrqEntry(0, 200, 0, 236, "eth1-rx-3").Raise(0, 205, 0, kNetRx).IrqExit(0, 210, 0, 236);
  b.SoftirqEntry(0, 211, 0, kNetRx).SoftirqExit(0, 240, 0, kNetRx);
  TimerWakesTheNapiThreadOnCpu1(b);
  Report report = Analyze(b);
  ASSERT_EQ(report.net_path.size(), 2u);
  const NetPathRow& nic = report.net_path[0];
  EXPECT_EQ(nic.irq, (InterruptId{236, false}));
  EXPECT_EQ(nic.handler, "eth1-rx-3");
  EXPECT_EQ(nic.irq_cpus, std::vector<int>{0});
  EXPECT_EQ(nic.hardirqs, 1);
  ASSERT_EQ(nic.runners.size(), 1u);
  EXPECT_EQ(nic.runners[0].comm, "(hard-IRQ exit)");
  EXPECT_EQ(nic.waited_ns, 211 - 205);
  const NetPathRow& timer = report.net_path[1];
  EXPECT_EQ(timer.irq, (InterruptId{236, true}));
  EXPECT_EQ(timer.handler, "local_timer");
  EXPECT_EQ(timer.irq_cpus, std::vector<int>{1});
  EXPECT_EQ(timer.hardirqs, 1);
  ASSERT_EQ(timer.runners.size(), 1u);
  EXPECT_EQ(timer.runners[0].pid, kNapiThread);
  EXPECT_EQ(timer.waited_ns, 1200 - 1001);
}

}  // namespace
}  // namespace napiscope
