#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/report_diff.h"

namespace napiscope {
namespace {

using ::testing::HasSubstr;

Report WithLatency(int64_t p50_ns, int64_t p99_ns, int64_t max_ns) {
  Report report;
  SoftirqLatencyRow row;
  row.cpu = 1;
  row.vec = kNetRx;
  row.delay.count = 100;
  row.delay.p50_ns = p50_ns;
  row.delay.p99_ns = p99_ns;
  row.delay.max_ns = max_ns;
  report.softirq_latency.push_back(row);
  return report;
}

const DiffRow& Find(const ReportDiff& diff, const std::string& metric) {
  for (const DiffRow& row : diff.rows) {
    if (row.metric == metric) return row;
  }
  static const DiffRow kNone;
  ADD_FAILURE() << metric;
  return kNone;
}

TEST(ReportDiff, LowerLatencyIsAnImprovementAndHigherARegression) {
  ReportDiff diff = DiffReports(WithLatency(10'000, 400'000, 2'000'000),
                                WithLatency(10'000, 200'000, 3'000'000));
  ASSERT_EQ(diff.rows.size(), 3u);
  const DiffRow& p50 = Find(diff, "softirq_latency_p50_ns");
  EXPECT_EQ(p50.subject, "CPU1 NET_RX");
  EXPECT_EQ(p50.verdict, ChangeVerdict::kSame);
  const DiffRow& p99 = Find(diff, "softirq_latency_p99_ns");
  EXPECT_EQ(p99.verdict, ChangeVerdict::kImproved);
  EXPECT_EQ(p99.Change(), -200'000);
  EXPECT_DOUBLE_EQ(*p99.RelativeChange(), -0.5);
  const DiffRow& max = Find(diff, "softirq_latency_max_ns");
  EXPECT_EQ(max.verdict, ChangeVerdict::kRegressed);
  EXPECT_DOUBLE_EQ(*max.RelativeChange(), 0.5);
  EXPECT_EQ(CountRegressions(diff, 49), 1);
  EXPECT_EQ(CountRegressions(diff, 50), 0);  // exceeding, not reaching
  std::string text = DiffToText(diff);
  EXPECT_THAT(text, HasSubstr("2 of 3 metrics changed"));
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "softirq latency max +CPU1 NET_RX +2.00 ms +3.00 ms +\\+1.00 ms \\(\\+50.0%\\) "
                        "+REGRESSED\n"));
}

TEST(ReportDiff, SubjectsOnOneSideAndRegressionsFromZero) {
  Report before, after = WithLatency(1'000, 2'000, 3'000);
  ThreadActivityRow thread;
  thread.task_class = TaskClass::kIrqThread;
  thread.comm = "irq/30-eth0";
  thread.irq = 30;
  thread.activations = 10;
  before.irq_threads.push_back(thread);
  thread.cross_cpu_activations = 4;
  after.irq_threads.push_back(thread);
  ReportDiff diff = DiffReports(before, after);
  const DiffRow& share = Find(diff, "irq_thread_cross_cpu_share");
  EXPECT_EQ(share.subject, "irq/30-eth0");
  EXPECT_EQ(share.verdict, ChangeVerdict::kRegressed);
  EXPECT_FALSE(share.RelativeChange().has_value());  // from 0
  EXPECT_EQ(Find(diff, "softirq_latency_max_ns").verdict, ChangeVerdict::kOnlyAfter);
  EXPECT_EQ(CountRegressions(diff, 1e9), 1);  // a regression from 0 exceeds any percentage
  nlohmann::json json = DiffToJson(diff);
  EXPECT_EQ(json["rows"][0]["before"], nullptr);
  EXPECT_EQ(json["rows"][0]["verdict"], "only_after");
}

}  // namespace
}  // namespace napiscope
