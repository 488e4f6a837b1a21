// The thread, ksoftirqd and idle sections of the report, end to end through the pipeline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/report_render.h"
#include "support/event_builder.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100;
constexpr int32_t kIrqThread = 500;

// `activations` hard IRQs on CPU0; the thread runs on CPU1 every other time unless pinned.
EventBuilder IrqThreadScenario(int activations, bool pinned) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kIrqThread, "irq/354-4848400", 49);
  b.Other(0, 0, kIperf, "x").Other(1, 0, 0, "x");
  for (int i = 0; i < activations; ++i) {
    TimestampNs t = 1000 + i * 1000;
    int cpu = pinned || i % 2 == 0 ? 0 : 1;
    int32_t previous = cpu == 0 ? kIperf : 0;
    b.IrqEntry(0, t, kIperf, 354, "4848400.ethernet").IrqExit(0, t + 5, kIperf, 354);
    if (!pinned && i > 0) b.Migrate(0, t + 8, kIperf, kIrqThread, cpu == 0 ? 1 : 0, cpu);
    b.Switch(cpu, t + (cpu == 0 ? 10 : 40), previous, kStatePreempted, kIrqThread);
    b.Switch(cpu, t + 300, kIrqThread, kStateInterruptible, previous);
  }
  return b;
}

Report Analyze(EventBuilder& b) {
  AnalysisPipeline pipeline(AnalysisOptions{});
  b.Play(pipeline);
  return pipeline.Finish(b.context());
}

std::vector<const Finding*> FindingsOf(const Report& report, const std::string& prefix) {
  std::vector<const Finding*> found;
  for (const Finding& f : report.findings) {
    if (f.rule.rfind(prefix, 0) == 0) found.push_back(&f);
  }
  return found;
}

TEST(SchedulingReport, BouncingIrqThreadIsPingPongWithThePinCommands) {
  EventBuilder b = IrqThreadScenario(40, false);
  Report report = Analyze(b);
  ASSERT_EQ(report.irq_threads.size(), 1u);
  EXPECT_EQ(report.irq_threads[0].activations, 40);
  EXPECT_EQ(report.irq_threads[0].cross_cpu_activations, 20);
  EXPECT_EQ(report.irq_threads[0].migrations, 39);
  EXPECT_EQ(report.irq_threads[0].cpu_changes, 39);
  std::vector<const Finding*> found = FindingsOf(report, "irq-thread");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->rule, "irq-thread-pingpong");
  EXPECT_EQ(found[0]->severity, Severity::kError);  // 50% share
  EXPECT_THAT(found[0]->summary, ::testing::HasSubstr("IRQ 354 ran on another CPU than its hard "
                                                      "IRQ in 20 of 40 activations (50%)"));
  EXPECT_THAT(found[0]->summary, ::testing::HasSubstr("echo 0 > /proc/irq/354/smp_affinity_list"));
  EXPECT_THAT(found[0]->summary, ::testing::HasSubstr("taskset -pc 0 500"));
  EXPECT_THAT(
      found[0]->summary,
      ::testing::HasSubstr("40 ns (median; 40 ns at worst) against 10 ns same-CPU (+30 ns)"));
  // Its interval: the first of the slowest cross-CPU activations, wakeup to run.
  EXPECT_EQ(found[0]->start_ns, report.irq_threads[0].wake_to_run_cross_cpu.max_at_ns);
  EXPECT_GT(found[0]->start_ns, 0);
  EXPECT_EQ(found[0]->end_ns - found[0]->start_ns, 40);
}

TEST(SchedulingReport, PinnedIrqThreadHasNoFinding) {
  EventBuilder b = IrqThreadScenario(40, true);
  Report report = Analyze(b);
  ASSERT_EQ(report.irq_threads.size(), 1u);
  EXPECT_EQ(report.irq_threads[0].cross_cpu_activations, 0);
  EXPECT_TRUE(FindingsOf(report, "irq-thread").empty());
}

TEST(SchedulingReport, JsonSectionsCarryTheRows) {
  EventBuilder b = IrqThreadScenario(40, false);
  nlohmann::json json = ReportToJson(Analyze(b));
  ASSERT_EQ(json["irq_threads"].size(), 1u);
  const nlohmann::json& row = json["irq_threads"][0];
  EXPECT_EQ(row["irq"], 354);
  EXPECT_EQ(row["name"], "4848400.ethernet");
  EXPECT_EQ(row["comm"], "irq/354-4848400");
  EXPECT_EQ(row["hardirq_cpus"], nlohmann::json::array({0}));
  EXPECT_EQ(row["cross_cpu_activations"], 20);
  EXPECT_EQ(row["cpus"]["1"], 20 * 260);
  EXPECT_EQ(row["wake_to_run"]["cross_cpu"]["p50_ns"], 40);
  EXPECT_EQ(row["wake_to_run"]["same_cpu"]["count"], 20);
  EXPECT_TRUE(json["napi_threads"].empty());
  EXPECT_TRUE(json["ksoftirqd_blocked"].is_array());
  EXPECT_TRUE(json["idle_with_pending"].is_array());
}

TEST(SchedulingReport, RealThreadedNapiMigrationsMatchTraceCmd) {
  Report report;
  ASSERT_TRUE(AnalyzeTrace(testing::TestData("real/veth-threaded-napi.dat"), AnalysisOptions{},
                           &report)
                  .ok());
  // `trace-cmd report | grep sched_migrate_task` shows 5 for napi/va-264 and 5 for napi/vb-265.
  std::map<std::string, int64_t> migrations;
  for (const ThreadActivityRow& row : report.napi_threads) migrations[row.comm] = row.migrations;
  EXPECT_EQ(migrations, (std::map<std::string, int64_t>{{"napi/va-264", 5}, {"napi/vb-265", 5}}));
  if (testing::HaveProgram("trace-cmd")) {
    for (const auto& [comm, count] : migrations) {
      auto result = testing::RunCommand("trace-cmd report -i " +
                                        testing::TestData("real/veth-threaded-napi.dat") +
                                        " | grep -c 'sched_migrate_task: *comm=" + comm + " '");
      EXPECT_EQ(std::stoll(result.out), count) << comm;
    }
  }
  EXPECT_TRUE(FindingsOf(report, "napi-thread-pingpong").empty());  // woken remotely, not bouncing
}

TEST(SchedulingReport, IdleTraceHasNoSchedulingFindings) {
  Report report;
  ASSERT_TRUE(AnalyzeTrace(testing::TestData("real/idle.dat"), AnalysisOptions{}, &report).ok());
  for (const char* rule : {"irq-thread", "napi-thread", "ksoftirqd-blocked",
                           "softirq-pending-at-idle", "softirq-ordering-stall"}) {
    EXPECT_TRUE(FindingsOf(report, rule).empty()) << rule;
  }
}

}  // namespace
}  // namespace napiscope
