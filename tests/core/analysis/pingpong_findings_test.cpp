// Ping-pong judgement of IRQ and NAPI threads (issue 17): migrations per second and the time
// split between CPUs count, not only the share of runs; "stays on its CPU" only when it did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/scheduling_findings.h"

namespace napiscope {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ThreadActivityRow IrqThread() {
  ThreadActivityRow row;
  row.task_class = TaskClass::kIrqThread;
  row.pid = 77;
  row.comm = "irq/45-eth0";
  row.irq = 45;
  row.hardirq_cpus = {{0, 600}};
  row.activations = 600;
  row.cross_cpu_activations = 300;
  row.activation_paths = {{{0, 0}, 300}, {{0, 1}, 300}};
  return row;
}

std::vector<Finding> Judge(const ThreadActivityRow& row) {
  std::vector<Finding> findings;
  internal::PingPongFindings({row}, Thresholds{}, &findings);
  return findings;
}

// The report of issue 17: forced back and forth 29 times in 0.54 s, 85 ms on one CPU and
// 90 ms on the other, but few CPU changes for its many runs.
TEST(PingPongFindings, FrequentMigrationsWithTimeSplitBetweenCpusArePingPong) {
  ThreadActivityRow row = IrqThread();
  row.runs = 600;
  row.cpu_changes = 29;
  row.migrations = 29;
  row.cpu_changes_per_s = 29 / 0.54;
  row.migrations_per_s = 29 / 0.54;
  row.run_ns_by_cpu = {{0, 85'000'000}, {1, 90'000'000}};
  std::vector<Finding> findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "irq-thread-pingpong");
  EXPECT_EQ(findings[0].severity, Severity::kError);  // half its activations cross CPUs
  EXPECT_THAT(findings[0].summary, Not(HasSubstr("stays on its CPU")));
  // What it names, for viewers: the thread, its IRQ, the CPU to pin it to (its IRQ's), then
  // the other CPUs it ran on.
  EXPECT_EQ(findings[0].pid, 77);
  EXPECT_EQ(findings[0].irq, (InterruptId{45, false}));
  EXPECT_EQ(findings[0].other_cpus, (std::vector<int>{0, 1}));
}

TEST(PingPongFindings, RareMovesBothWaysAreNotCalledStayingOnItsCpu) {
  ThreadActivityRow row = IrqThread();
  row.runs = 3000;
  row.cpu_changes = 6;
  row.migrations = 5;
  row.cpu_changes_per_s = 18;
  row.migrations_per_s = 15;
  row.run_ns_by_cpu = {{0, 100'000'000}, {1, 15'000'000}};
  std::vector<Finding> findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "irq-thread-placement");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
  EXPECT_THAT(findings[0].summary, Not(HasSubstr("stays on its CPU")));
  EXPECT_THAT(findings[0].summary, HasSubstr("moved between CPUs (6 times, 15 migrations/s, 13%"));
}

// Where a viewer zooms to: the slowest cross-CPU activation, from its wakeup to its run, named
// in the sentence too; without an exact cross-CPU activation the finding has no interval.
TEST(PingPongFindings, TheIntervalIsTheSlowestCrossCpuActivation) {
  ThreadActivityRow row = IrqThread();
  row.runs = 600;
  row.run_ns_by_cpu = {{0, 50'000'000}};
  row.wake_to_run_cross_cpu = {.count = 300, .max_ns = 579'000, .max_at_ns = 705'544'215'665};
  row.wake_to_run_cross_cpu.p50_ns = 2'700;
  std::vector<Finding> findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].start_ns, 705'544'215'665);
  EXPECT_EQ(findings[0].end_ns, 705'544'794'665);
  EXPECT_THAT(findings[0].summary, HasSubstr("waited 2.7 us (median; 579 us at worst)"));

  row.wake_to_run_cross_cpu = {};
  findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].start_ns, 0);
  EXPECT_EQ(findings[0].end_ns, 0);
  EXPECT_THAT(findings[0].summary, Not(HasSubstr("at worst")));
}

// Issue 66: "napi/va-260 ran on another CPU than the one that woke it in 1001 of 1002
// activations" had `wake_to_run_cross_cpu_p50_ns: 0`: none of the 1001 had its switch-in
// recorded, so no wait was measured, and the median of none was written as 0 ns.
TEST(PingPongFindings, AMedianOfNoMeasuredWaitIsUnknownNotZero) {
  ThreadActivityRow row = IrqThread();
  row.task_class = TaskClass::kNapiKthread;
  row.comm = "napi/va-260";
  row.irq = -1;
  row.activations = 1002;
  row.cross_cpu_activations = 1001;
  row.inexact_activations = 1002;
  row.activation_paths = {{{0, 0}, 1}, {{0, 1}, 1001}};
  row.runs = 1002;
  row.run_ns_by_cpu = {{1, 50'000'000}};
  std::vector<Finding> findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "napi-thread-placement");
  EXPECT_EQ(findings[0].evidence.at("wake_to_run_cross_cpu_p50_ns"),
            "unknown: none of its 1001 activations had its switch-in recorded");
  EXPECT_EQ(findings[0].evidence.at("wake_to_run_same_cpu_p50_ns"),
            "unknown: none of its 1 activation had its switch-in recorded");
  // Measured waits give their median, as before.
  row.wake_to_run_cross_cpu = {.count = 1001, .p50_ns = 2'700, .max_ns = 9'000};
  findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].evidence.at("wake_to_run_cross_cpu_p50_ns"), 2'700);
}

TEST(PingPongFindings, AThreadThatNeverMovedStaysOnItsCpu) {
  ThreadActivityRow row = IrqThread();
  row.runs = 600;
  row.cross_cpu_activations = 600;
  row.activation_paths = {{{0, 1}, 600}};
  row.run_ns_by_cpu = {{1, 50'000'000}};
  std::vector<Finding> findings = Judge(row);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "irq-thread-placement");
  EXPECT_THAT(findings[0].summary, HasSubstr("It stays on its CPU"));
}

}  // namespace
}  // namespace napiscope
