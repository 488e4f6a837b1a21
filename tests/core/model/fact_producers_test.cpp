// The fact producers on hand-made traces: each definition of docs/definitions.md, one test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/producers.h"
#include "support/event_builder.h"
#include "support/fact_recorder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100, kApp = 200, kIrqThread = 500, kNapiThread = 600;

using ::napiscope::testing::FactRecorder;
using ::napiscope::testing::ProduceFacts;

TEST(SoftirqWaitProducer, PairsOnlyTheFirstRaiseWithTheNextEntryOnTheSameCpu) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 100, 0, kStatePreempted, kIperf).Switch(1, 100, 0, kStatePreempted, kIperf + 1);
  b.Raise(0, 1000, kIperf, kNetRx).Raise(0, 1500, kIperf, kNetRx);  // second: already pending
  b.Raise(0, 1600, kIperf, kTimer);
  b.SoftirqEntry(1, 1700, kIperf + 1, kNetRx).SoftirqExit(1, 1750, kIperf + 1, kNetRx);  // CPU1
  b.SoftirqEntry(0, 2000, kIperf, kNetRx).SoftirqExit(0, 2100, kIperf, kNetRx);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.raises.size(), 2u);
  EXPECT_EQ(r.raises[0].raise_ns, 1000);
  EXPECT_EQ(r.raises[1].vec, static_cast<uint32_t>(kTimer));
  EXPECT_EQ(r.raises[1].pending_mask, (1u << kNetRx) | (1u << kTimer));
  ASSERT_EQ(r.waits.size(), 2u);
  EXPECT_FALSE(r.waits[0].paired());  // CPU1 never had NET_RX raised
  EXPECT_EQ(r.waits[0].cpu, 1);
  EXPECT_TRUE(r.waits[1].paired());
  EXPECT_EQ(r.waits[1].raise_ns, 1000);
  EXPECT_EQ(r.waits[1].delay_ns(), 1000);
  EXPECT_EQ(r.waits[1].pending_mask, (1u << kNetRx) | (1u << kTimer));
  EXPECT_EQ(r.waits[1].site, SoftirqSite::kTaskBhEnable);
}

TEST(SoftirqWaitProducer, LostEventsDropThePendingRaises) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Raise(0, 1000, kIperf, kNetRx).Raise(0, 1100, kIperf, kSched);
  b.Missed(0, 1500, 12);
  b.SoftirqEntry(0, 2000, kIperf, kNetRx).SoftirqExit(0, 2100, kIperf, kNetRx);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.dropped_raises.size(), 2u);
  EXPECT_EQ(r.dropped_raises[0].first.vec, static_cast<uint32_t>(kNetRx));
  EXPECT_EQ(r.dropped_raises[0].second, 1500);
  EXPECT_EQ(r.dropped_raises[1].first.raise_ns, 1100);
  ASSERT_EQ(r.waits.size(), 1u);
  EXPECT_FALSE(r.waits[0].paired());
}

TEST(ThreadActivationProducer, PairsHardIrqWithSwitchInAndDropsAcrossLostEvents) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kIrqThread, "irq/354-eth0", 49);
  b.Switch(0, 100, 0, kStatePreempted, kIperf).Switch(1, 100, kIperf + 1, kStatePreempted, 0);
  b.IrqEntry(0, 1000, kIperf, 354, "eth0").IrqExit(0, 1005, kIperf, 354);
  b.IrqEntry(0, 1010, kIperf, 354, "eth0").IrqExit(0, 1015, kIperf, 354);  // already pending
  b.Switch(1, 1100, 0, kStatePreempted, kIrqThread);
  b.Switch(1, 1200, kIrqThread, kStateInterruptible, 0);
  b.IrqEntry(0, 2000, kIperf, 354, "eth0").IrqExit(0, 2005, kIperf, 354);
  b.Missed(1, 2050, 3);
  b.Switch(1, 2100, 0, kStatePreempted, kIrqThread);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.activations.size(), 2u);
  EXPECT_EQ(r.activations[0].woken_ns, 1000);
  EXPECT_EQ(r.activations[0].run_ns, 1100);
  EXPECT_TRUE(r.activations[0].cross_cpu());
  EXPECT_TRUE(r.activations[0].exact);
  EXPECT_FALSE(r.activations[0].lost);
  EXPECT_EQ(r.activations[0].irq, 354);
  EXPECT_TRUE(r.activations[1].lost);  // events lost on CPU1 between the IRQ and the run
}

TEST(ThreadActivationProducer, FollowsTheCurrentTaskAndUnannouncedRuns) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kNapiThread, "napi/eth0-8193");
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Waking(0, 200, kIperf, kNapiThread, 0);
  b.Other(0, 300, kNapiThread, "x");  // it runs; its switch-in was not recorded
  b.Migrate(0, 400, kNapiThread, kNapiThread, 0, 1);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.switches.size(), 2u);
  EXPECT_TRUE(r.switches[0].exact);
  EXPECT_EQ(r.switches[1].prev_pid, kIperf);
  EXPECT_EQ(r.switches[1].next_pid, kNapiThread);
  EXPECT_FALSE(r.switches[1].exact);
  ASSERT_EQ(r.activations.size(), 1u);
  EXPECT_FALSE(r.activations[0].exact);
  EXPECT_EQ(r.activations[0].run_ns, 300);
  ASSERT_EQ(r.migrations.size(), 1u);
  EXPECT_EQ(r.migrations[0].dest_cpu, 1);
}

// Issue 63, item 6: a NAPI kthread's wake-to-run pairs by the one rule of wake-to-run waits
// (docs/definitions.md). Woken from CPU0 onto CPU1's queue, events lost on CPU1 (it may have
// run there), then moved to CPU2 and switched in: the pair is unknown, as in rt_wake_latency,
// not a 17 ms wait. And a second waking means it ran and slept unseen: the wait starts there.
TEST(ThreadActivationProducer, PairsWakesByTheRuleOfWakeToRunWaits) {
  EventBuilder b(3);
  b.Task(kIperf, "iperf3").Task(kNapiThread, "napi/eth0-8193", 49);
  b.Switch(0, 100, 0, kStatePreempted, kIperf).Switch(2, 100, 0, kStatePreempted, kIperf + 2);
  b.Waking(0, 1000, kIperf, kNapiThread, 1);
  b.Missed(1, 1200, -1);
  b.Migrate(0, 1300, kIperf, kNapiThread, 1, 2);
  b.Switch(2, 17350000, kIperf + 2, kStatePreempted, kNapiThread);
  b.Switch(2, 17360000, kNapiThread, kStateInterruptible, kIperf + 2);
  b.Waking(0, 20000000, kIperf, kNapiThread, 2);
  b.Waking(0, 37000000, kIperf, kNapiThread, 2);  // it ran and slept in between, unseen
  b.Switch(2, 37000500, kIperf + 2, kStatePreempted, kNapiThread);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.activations.size(), 3u);
  EXPECT_TRUE(r.activations[0].lost);  // across CPU1's lost events
  EXPECT_EQ(r.activations[1].woken_ns, 20000000);
  EXPECT_TRUE(r.activations[1].lost);  // woken again: it ran unseen
  EXPECT_FALSE(r.activations[2].lost);
  EXPECT_EQ(r.activations[2].woken_ns, 37000000);
  EXPECT_EQ(r.activations[2].run_ns - r.activations[2].woken_ns, 500);
  // The same pairs as the wake-to-run waits.
  ASSERT_EQ(r.ran.size(), 1u);
  EXPECT_EQ(r.ran[0].waking_ns, r.activations[2].woken_ns);
  EXPECT_EQ(r.wake_drops.size(), 2u);
}

TEST(WakeWaitProducer, PairsWakingWithSwitchInAcrossAMigration) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kApp, "app", 10);
  b.Switch(0, 100, 0, kStatePreempted, kIperf).Switch(1, 100, 0, kStatePreempted, kIperf + 1);
  b.Waking(0, 1000, kIperf, kApp, 0);
  b.Migrate(0, 1100, kIperf, kApp, 0, 1);
  b.Switch(1, 1500, kIperf + 1, kStatePreempted, kApp);
  b.Waking(0, 1600, kIperf, kApp, 1);  // running: starts nothing
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.queued.size(), 1u);
  EXPECT_EQ(r.queued[0].queue_cpu, 0);
  ASSERT_EQ(r.moves.size(), 1u);
  EXPECT_EQ(std::get<2>(r.moves[0]), 1);
  ASSERT_EQ(r.ran.size(), 1u);
  EXPECT_EQ(r.ran[0].run_ns - r.ran[0].waking_ns, 500);
  EXPECT_EQ(r.ran[0].queue_cpu, 1);
  EXPECT_TRUE(r.wake_drops.empty());
}

// Issue 17: a second sched_waking while the first waits means the task ran and slept unseen.
TEST(WakeWaitProducer, AnotherWakingDropsTheFirstWaitAsUnknown) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kApp, "app", 10);
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Waking(0, 1000, kIperf, kApp, 1);
  b.Waking(0, 5000, kIperf, kApp, 1);
  b.Switch(1, 5100, 0, kStatePreempted, kApp);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.queued.size(), 2u);
  ASSERT_EQ(r.wake_drops.size(), 1u);
  EXPECT_EQ(r.wake_drops[0].first, r.queued[0].wait_id);
  EXPECT_EQ(r.wake_drops[0].second, WakeDropReason::kWokenAgain);
  ASSERT_EQ(r.ran.size(), 1u);
  EXPECT_EQ(r.ran[0].waking_ns, 5000);  // 100 ns, not 4.1 us across the unseen run
}

TEST(WakeWaitProducer, LostEventsOnTheQueueCpuDropTheWait) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kApp, "app", 10);
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Waking(0, 1000, kIperf, kApp, 1);
  b.Missed(1, 1200, -1);
  b.Switch(1, 1300, 0, kStatePreempted, kApp);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.wake_drops.size(), 1u);
  EXPECT_EQ(r.wake_drops[0].second, WakeDropReason::kLostEvents);
  EXPECT_TRUE(r.ran.empty());
}

}  // namespace
}  // namespace napiscope
