#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/thread_activity.h"
#include "napiscope/producers.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100;
constexpr int32_t kIrqThread = 500;
constexpr int32_t kNapiThread = 600;

std::vector<ThreadActivityRow> Analyze(EventBuilder& b, TimestampNs span_ns = 1'000'000'000) {
  ContextTracker tracker;
  FactProducers facts(&tracker);
  internal::ThreadActivity activity{&facts, AnalysisWindow{}};
  tracker.AddListener(&facts);
  tracker.AddListener(&activity);
  facts.AddListener(&activity);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&facts);
  fanout.Add(&activity);
  b.Play(fanout);
  return activity.Rows(span_ns);
}

// The am57xx case of docs/definitions.md: the hard IRQ always on CPU0, its thread alternating CPUs.
EventBuilder BouncingIrqThread(bool pinned) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kIrqThread, "irq/354-4848400", 49);
  b.Other(0, 0, kIperf, "x").Other(1, 0, 0, "x");
  TimestampNs t = 1000;
  for (int i = 0; i < 4; ++i, t += 1000) {
    int run_cpu = pinned || i % 2 == 1 ? 0 : 1;
    int32_t was_there = run_cpu == 0 ? kIperf : 0;
    TimestampNs delay = run_cpu == 0 ? 10 + 10 * (i / 2) : 50 + 10 * (i / 2);
    b.IrqEntry(0, t, kIperf, 354, "4848400.ethernet").IrqExit(0, t + 5, kIperf, 354);
    if (!pinned && i > 0) b.Migrate(0, t + delay - 2, kIperf, kIrqThread, i % 2 ? 1 : 0, run_cpu);
    b.Switch(run_cpu, t + delay, was_there, kStatePreempted, kIrqThread);
    int32_t on_cpu0 = run_cpu == 0 ? kIrqThread : kIperf;
    b.IrqEntry(0, t + delay + 5, on_cpu0, 354, "4848400.ethernet")  // it runs: not an activation
        .IrqExit(0, t + delay + 6, on_cpu0, 354);
    b.Switch(run_cpu, t + delay + 40, kIrqThread, kStateInterruptible, was_there);
  }
  return b;
}

TEST(ThreadActivity, CountsCrossCpuActivationsOfABouncingIrqThread) {
  EventBuilder b = BouncingIrqThread(false);
  std::vector<ThreadActivityRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 1u);
  const ThreadActivityRow& row = rows[0];
  EXPECT_EQ(row.task_class, TaskClass::kIrqThread);
  EXPECT_EQ(row.pid, kIrqThread);
  EXPECT_EQ(row.irq, 354);
  EXPECT_EQ(row.irq_handler, "4848400.ethernet");
  EXPECT_EQ(row.hardirq_cpus, (std::map<int, int64_t>{{0, 8}}));
  EXPECT_EQ(row.activations, 4);
  EXPECT_EQ(row.cross_cpu_activations, 2);
  EXPECT_EQ(row.migrations, 3);
  EXPECT_EQ(row.runs, 4);
  EXPECT_EQ(row.cpu_changes, 3);
  EXPECT_EQ(row.run_ns_by_cpu, (std::map<int, int64_t>{{0, 80}, {1, 80}}));
  EXPECT_EQ((row.activation_paths.at({0, 1})), 2);
  EXPECT_EQ((row.activation_paths.at({0, 0})), 2);
  // Cross-CPU runs began 50 and 60 ns after their hard IRQ, same-CPU runs 10 and 20 ns.
  EXPECT_EQ(row.wake_to_run_cross_cpu.count, 2);
  EXPECT_EQ(row.wake_to_run_cross_cpu.min_ns, 50);
  EXPECT_EQ(row.wake_to_run_cross_cpu.max_ns, 60);
  EXPECT_EQ(row.wake_to_run_same_cpu.count, 2);
  EXPECT_EQ(row.wake_to_run_same_cpu.min_ns, 10);
  EXPECT_EQ(row.wake_to_run_same_cpu.max_ns, 20);
  EXPECT_DOUBLE_EQ(row.CrossCpuShare(), 0.5);
}

TEST(ThreadActivity, PinnedIrqThreadHasNoCrossCpuActivation) {
  EventBuilder b = BouncingIrqThread(true);
  std::vector<ThreadActivityRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].activations, 4);
  EXPECT_EQ(rows[0].cross_cpu_activations, 0);
  EXPECT_EQ(rows[0].migrations, 0);
  EXPECT_EQ(rows[0].cpu_changes, 0);
  EXPECT_EQ(rows[0].run_ns_by_cpu, (std::map<int, int64_t>{{0, 160}}));
}

TEST(ThreadActivity, NapiThreadActivationsFollowWakingsAndSkipGaps) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kNapiThread, "napi/eth0-8193");
  b.Other(0, 0, kIperf, "x").Other(1, 0, 0, "x");
  b.Waking(0, 100, kIperf, kNapiThread, 1)
      // Woken again: the kernel traces sched_waking only for a sleeping task, so it ran and
      // slept unseen; the first activation is unknown and this one begins anew.
      .Waking(0, 120, kIperf, kNapiThread, 1)
      .Switch(1, 300, 0, kStateIdle, kNapiThread)
      .Switch(1, 400, kNapiThread, kStateInterruptible, 0)
      .Waking(1, 500, 0, kNapiThread, 1)
      .Missed(1, 550, 10)  // lost events between the waking and the run: unknown
      .Switch(1, 600, 0, 0, kNapiThread)
      .Switch(1, 650, kNapiThread, kStateInterruptible, 0)
      .Waking(0, 700, kIperf, kNapiThread, 0)
      .Other(0, 720, kNapiThread, "x");  // runs, but its sched_switch was not recorded
  std::vector<ThreadActivityRow> rows = Analyze(b);
  ASSERT_EQ(rows.size(), 1u);
  const ThreadActivityRow& row = rows[0];
  EXPECT_EQ(row.task_class, TaskClass::kNapiKthread);
  EXPECT_EQ(row.activations, 2);
  EXPECT_EQ(row.cross_cpu_activations, 1);
  EXPECT_EQ(row.dropped_activations, 2);  // woken again at 120; events lost at 550
  EXPECT_EQ(row.inexact_activations, 1);
  EXPECT_EQ(row.wake_to_run_cross_cpu.count, 1);
  EXPECT_EQ(row.wake_to_run_cross_cpu.max_ns, 180);  // from the second waking
  EXPECT_EQ(row.wake_to_run_same_cpu.count, 0);
}

}  // namespace
}  // namespace napiscope
