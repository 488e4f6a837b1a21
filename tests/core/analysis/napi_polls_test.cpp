// NAPI polls per instance, CPU and context on hand-made traces whose numbers are obvious.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/napi_polls.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100, kApp = 200, kKsoftirqd0 = 15, kNapiThread = 600;
constexpr uint64_t kEth0 = 0x1000, kEth1 = 0x2000;

std::vector<NapiRow> Analyze(EventBuilder& b, bool skb_recorded = true) {
  ContextTracker tracker;
  internal::NapiPolls napi{AnalysisWindow{}};
  tracker.AddListener(&napi);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&napi);
  b.Play(fanout);
  return napi.Rows(b.context(), skb_recorded);
}

// eth0 polled in NET_RX at hard-IRQ exit, then (after two full polls) in ksoftirqd/0 on CPU0;
// eth1 polled by its NAPI kthread, then busy-polled by an application, on CPU1.
EventBuilder FourContexts() {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kApp, "app").Task(kKsoftirqd0, "ksoftirqd/0");
  b.Task(kNapiThread, "napi/eth1-8193");
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Switch(1, 100, 0, kStatePreempted, kNapiThread);
  b.IrqEntry(0, 1000, kIperf, 30, "eth0").Raise(0, 1100, kIperf, kNetRx);
  b.IrqExit(0, 1200, kIperf, 30).SoftirqEntry(0, 1300, kIperf, kNetRx);
  b.NetifReceiveSkb(0, 1400, kIperf, "eth0", 1500).NetifReceiveSkb(0, 1500, kIperf, "eth0", 1500);
  b.NetifReceiveSkb(0, 1600, kIperf, "lo", 100);  // another device: not eth0's
  b.NapiPoll(0, 2000, kIperf, kEth0, "eth0", 64, 64);
  b.NetifReceiveSkb(0, 2100, kIperf, "eth0", 1500);
  b.NapiPoll(0, 3000, kIperf, kEth0, "eth0", 64, 64);
  b.SoftirqExit(0, 3100, kIperf, kNetRx);
  b.Switch(0, 4000, kIperf, kStatePreempted, kKsoftirqd0).SoftirqEntry(0, 4100, kKsoftirqd0, kNetRx);
  b.NapiPoll(0, 5000, kKsoftirqd0, kEth0, "eth0", 64, 64);
  b.NapiPoll(0, 5500, kKsoftirqd0, kEth0, "eth0", 10, 64);
  b.SoftirqExit(0, 5600, kKsoftirqd0, kNetRx).Switch(0, 5700, kKsoftirqd0, kStateInterruptible, kIperf);
  b.NapiPoll(1, 1000, kNapiThread, kEth1, "eth1", 64, 64);
  b.NapiPoll(1, 1500, kNapiThread, kEth1, "eth1", 5, 64);
  b.Switch(1, 2000, kNapiThread, kStateInterruptible, kApp);
  b.NapiPoll(1, 3000, kApp, kEth1, "eth1", 3, 64);
  return b;
}

TEST(NapiPolls, CountsPollsWorkAndChainsPerContext) {
  EventBuilder b = FourContexts();
  std::vector<NapiRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 4u);

  const NapiRow& irq_exit = rows[0];
  EXPECT_EQ(irq_exit.dev, "eth0");
  EXPECT_EQ(irq_exit.napi, kEth0);
  EXPECT_EQ(irq_exit.cpu, 0);
  EXPECT_EQ(NapiContextName(irq_exit.context), "irq_exit");
  EXPECT_EQ(irq_exit.polls, 2);
  EXPECT_EQ(irq_exit.exhausted, 2);
  EXPECT_EQ(irq_exit.work, 128);
  EXPECT_EQ(irq_exit.budget, 64);
  EXPECT_EQ(irq_exit.max_consecutive_exhausted, 2);
  EXPECT_EQ(irq_exit.netif_receive_skb, 3);
  EXPECT_EQ(irq_exit.poll_time.count, 2);
  EXPECT_EQ(irq_exit.poll_time.min_ns, 700);   // softirq entry 1300 -> poll 2000
  EXPECT_EQ(irq_exit.poll_time.max_ns, 1000);  // previous poll 2000 -> poll 3000

  const NapiRow& ksoftirqd = rows[1];
  EXPECT_EQ(NapiContextName(ksoftirqd.context), "ksoftirqd");
  EXPECT_EQ(ksoftirqd.polls, 2);
  EXPECT_EQ(ksoftirqd.exhausted, 1);
  EXPECT_EQ(ksoftirqd.work, 74);
  EXPECT_EQ(ksoftirqd.max_consecutive_exhausted, 3);  // the chain began at hard-IRQ exit
  EXPECT_EQ(ksoftirqd.longest_chain_start_ns, 1300);
  EXPECT_EQ(ksoftirqd.longest_chain_end_ns, 5000);
  EXPECT_EQ(ksoftirqd.work_per_poll.min, 10);
  EXPECT_EQ(ksoftirqd.work_per_poll.max, 64);
  EXPECT_EQ(ksoftirqd.work_per_poll.p50, 10);
  EXPECT_DOUBLE_EQ(ksoftirqd.work_per_poll.mean, 37.0);
  EXPECT_EQ(ksoftirqd.poll_time.min_ns, 500);
  EXPECT_EQ(ksoftirqd.poll_time.max_ns, 900);
  EXPECT_EQ(ksoftirqd.netif_receive_skb, 0);

  const NapiRow& busy = rows[2];
  EXPECT_EQ(busy.dev, "eth1");
  EXPECT_EQ(NapiContextName(busy.context), "busy_poll");
  EXPECT_EQ(busy.polls, 1);
  EXPECT_EQ(busy.exhausted, 0);
  EXPECT_EQ(busy.max_consecutive_exhausted, 0);
  EXPECT_EQ(busy.poll_time.max_ns, 1000);  // the app's run began at 2000

  const NapiRow& kthread = rows[3];
  EXPECT_EQ(kthread.cpu, 1);
  EXPECT_EQ(NapiContextName(kthread.context), "napi_kthread");
  EXPECT_EQ(kthread.polls, 2);
  EXPECT_EQ(kthread.exhausted, 1);
  EXPECT_EQ(kthread.work, 69);
  EXPECT_EQ(kthread.max_consecutive_exhausted, 1);
  EXPECT_DOUBLE_EQ(kthread.ExhaustedShare(), 0.5);
}

// The backlog (netif_rx, RPS, loopback) polls as "(no_device)" and hands packets up on their
// own devices: each netif_receive_skb inside its poll counts, whatever the device; those
// before the poll (inside eth0's) do not.
TEST(NapiPolls, BacklogPollsCountThePacketsOfEveryDevice) {
  constexpr uint64_t kBacklog = 0x3000;
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 100, 0, kStatePreempted, kIperf);
  b.Raise(0, 1000, kIperf, kNetRx).SoftirqEntry(0, 1100, kIperf, kNetRx);
  b.NetifReceiveSkb(0, 1200, kIperf, "eth0", 1500);
  b.NapiPoll(0, 1300, kIperf, kEth0, "eth0", 1, 64);
  b.NetifReceiveSkb(0, 1400, kIperf, "lo", 100).NetifReceiveSkb(0, 1500, kIperf, "veth0", 100);
  b.NetifReceiveSkb(0, 1550, kIperf, "lo", 100);
  b.NapiPoll(0, 1600, kIperf, kBacklog, "(no_device)", 3, 64);
  b.SoftirqExit(0, 1700, kIperf, kNetRx);
  std::vector<NapiRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].dev, "(no_device)");
  EXPECT_EQ(rows[0].netif_receive_skb, 3);
  EXPECT_EQ(rows[1].dev, "eth0");
  EXPECT_EQ(rows[1].netif_receive_skb, 1);
}

TEST(NapiPolls, SaysWhenNetifReceiveSkbWasNotRecorded) {
  EventBuilder b = FourContexts();
  for (const NapiRow& row : Analyze(b, false)) EXPECT_EQ(row.netif_receive_skb, -1);
}

TEST(NapiPolls, LostEventsCutAChainInsteadOfJoiningIt) {
  EventBuilder b(1);
  b.Task(kNapiThread, "napi/eth1-8193");
  b.Switch(0, 100, 0, kStatePreempted, kNapiThread);
  b.NapiPoll(0, 1000, kNapiThread, kEth1, "eth1", 64, 64);
  b.NapiPoll(0, 2000, kNapiThread, kEth1, "eth1", 64, 64);
  b.Missed(0, 3000, 50);
  b.Switch(0, 3100, 0, kStatePreempted, kNapiThread);
  b.NapiPoll(0, 4000, kNapiThread, kEth1, "eth1", 64, 64);
  std::vector<NapiRow> rows = Analyze(b);
  int64_t polls = 0, dropped = 0, longest = 0;
  for (const NapiRow& row : rows) {
    polls += row.polls;
    dropped += row.dropped_chains;
    longest = std::max(longest, row.max_consecutive_exhausted);
  }
  EXPECT_EQ(polls, 3);
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(longest, 2);  // not 3: the polls across the gap are unknown
}

}  // namespace
}  // namespace napiscope
