// The IRQ each softirq raise and each wakeup came from, as the fact producers hand it out
// (docs/definitions.md, "IRQ source"): a traced hard IRQ handler, the IRQ of the IRQ thread
// that raised or woke, or none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/producers.h"
#include "support/event_builder.h"
#include "support/fact_recorder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100, kIrqThread = 500, kNapiThread = 600;
constexpr uint8_t kHardirqFlags = kIrqsOff | kHardirq;  // "d.h"

using ::napiscope::testing::FactRecorder;
using ::napiscope::testing::ProduceFacts;

// IRQ 354 raises NET_RX in its handler on CPU0; it runs at IRQ exit over iperf3.
EventBuilder RaiseInHardIrq() {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.IrqEntry(0, 1000, kIperf, 354, "eth0").Raise(0, 1001, kIperf, kNetRx);
  b.IrqExit(0, 1005, kIperf, 354);
  b.SoftirqEntry(0, 1006, kIperf, kNetRx).SoftirqExit(0, 1050, kIperf, kNetRx);
  return b;
}

TEST(IrqSource, ARaiseInAHardIrqHandlerNamesThatIrqOnTheRaiseAndItsWait) {
  EventBuilder b = RaiseInHardIrq();
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.raises.size(), 1u);
  EXPECT_EQ(r.raises[0].source.irq, (InterruptId{354, false}));
  EXPECT_TRUE(r.raises[0].source.in_hardirq);
  ASSERT_EQ(r.waits.size(), 1u);
  EXPECT_EQ(r.waits[0].source.irq, (InterruptId{354, false}));
  EXPECT_TRUE(r.waits[0].source.in_hardirq);
  EXPECT_EQ(r.waits[0].task_pid, kIperf);  // the task it interrupted at IRQ exit
}

TEST(IrqSource, UnknownWithoutATracker) {
  EventBuilder b = RaiseInHardIrq();
  FactRecorder r = ProduceFacts(b, /*with_tracker=*/false);
  ASSERT_EQ(r.raises.size(), 1u);
  EXPECT_FALSE(r.raises[0].source.known());
  ASSERT_EQ(r.waits.size(), 1u);
  EXPECT_FALSE(r.waits[0].source.known());
  EXPECT_EQ(r.waits[0].task_pid, -1);
}

// 4.4-rt: the IRQ thread raises NET_RX and runs it itself; a plain task raises TIMER.
TEST(IrqSource, ARaiseInAnIrqThreadNamesTheIrqItServesAndTheRunnerItsPriority) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kIrqThread, "irq/354-eth0", 49);
  b.Switch(0, 100, 0, kStatePreempted, kIrqThread).Switch(1, 100, 0, kStatePreempted, kIperf);
  b.Raise(0, 1000, kIrqThread, kNetRx);
  b.SoftirqEntry(0, 1100, kIrqThread, kNetRx).SoftirqExit(0, 1200, kIrqThread, kNetRx);
  b.Raise(1, 1300, kIperf, kTimer);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.raises.size(), 2u);
  EXPECT_EQ(r.raises[0].source.irq, (InterruptId{354, false}));
  EXPECT_FALSE(r.raises[0].source.in_hardirq);
  EXPECT_FALSE(r.raises[1].source.known());
  ASSERT_EQ(r.waits.size(), 1u);
  EXPECT_EQ(r.waits[0].source.irq, (InterruptId{354, false}));
  EXPECT_EQ(r.waits[0].task_pid, kIrqThread);
  EXPECT_EQ(r.waits[0].task_prio, 49);
}

// A hard IRQ seen only in common_flags has no number, even over an IRQ thread.
TEST(IrqSource, ARaiseInAnUntracedHardIrqOverAnIrqThreadIsOfNoKnownIrq) {
  EventBuilder b(1);
  b.Task(kIrqThread, "irq/354-eth0", 49);
  b.Switch(0, 100, 0, kStatePreempted, kIrqThread);
  b.Raise(0, 1000, kIrqThread, kNetRx).Flags(kHardirqFlags);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.raises.size(), 1u);
  EXPECT_FALSE(r.raises[0].source.known());
}

// Threaded NAPI: IRQ 41's handler wakes the NAPI thread; an IRQ thread's activation is its
// own hard IRQ; a wakeup from a plain task has no IRQ.
TEST(IrqSource, WakeupsAndActivationsNameTheIrqThatWokeThem) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kNapiThread, "napi/eth1-8194", 49);
  b.Task(kIrqThread, "irq/354-eth0", 49).Task(kIperf + 1, "app");
  b.Switch(0, 100, 0, kStatePreempted, kIperf).Switch(1, 100, 0, kStatePreempted, kIperf + 1);
  b.IrqEntry(0, 1000, kIperf, 41, "eth1").Waking(0, 1001, kIperf, kNapiThread, 1);
  b.IrqExit(0, 1005, kIperf, 41);
  b.IrqEntry(0, 1010, kIperf, 354, "eth0").Waking(0, 1011, kIperf, kIrqThread, 0);
  b.IrqExit(0, 1015, kIperf, 354);
  b.Switch(1, 1100, kIperf + 1, kStatePreempted, kNapiThread);
  b.Switch(0, 1200, kIperf, kStatePreempted, kIrqThread);
  b.Switch(1, 1300, kNapiThread, kStateInterruptible, kIperf + 1);
  b.Waking(1, 1400, kIperf + 1, kNapiThread, 1);  // from a plain task
  b.Switch(1, 1500, kIperf + 1, kStatePreempted, kNapiThread);
  FactRecorder r = ProduceFacts(b);
  ASSERT_EQ(r.queued.size(), 3u);
  EXPECT_EQ(r.queued[0].pid, kNapiThread);
  EXPECT_EQ(r.queued[0].source.irq, (InterruptId{41, false}));
  EXPECT_TRUE(r.queued[0].source.in_hardirq);
  EXPECT_EQ(r.queued[1].source.irq, (InterruptId{354, false}));
  EXPECT_FALSE(r.queued[2].source.known());
  ASSERT_EQ(r.activations.size(), 3u);
  EXPECT_EQ(r.activations[0].pid, kNapiThread);
  EXPECT_EQ(r.activations[0].source.irq, (InterruptId{41, false}));
  EXPECT_EQ(r.activations[1].pid, kIrqThread);
  EXPECT_EQ(r.activations[1].source.irq, (InterruptId{354, false}));
  EXPECT_TRUE(r.activations[1].source.in_hardirq);
  EXPECT_FALSE(r.activations[2].source.known());
}

}  // namespace
}  // namespace napiscope
