// The text report's layout at any CPU count: lines under 120 columns (80 in an 80-column
// terminal), natural order, wrapping, wide tables folded.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_render.h"
#include "render/text_layout.h"
#include "support/test_support.h"
#include "tracegen/synthetic.h"

namespace napiscope {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

size_t LongestLine(const std::string& text) {
  size_t start = 0, longest = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    longest = std::max(longest, end - start);
  }
  return longest;
}

// Issue 21: the CPU-time table was 704 columns wide at 16 CPUs (CPUs side by side).
TEST(ReportTextLayout, NoLineOfTheDefaultReportExceeds120ColumnsAt64Cpus) {
  std::string dir = testing::MakeTempDir();
  std::string path = dir + "/64cpus.dat";
  tracegen::SyntheticOptions synthetic;
  synthetic.cpus = 64;
  synthetic.events = 64 * tracegen::kSyntheticCycleEvents * 40;
  ASSERT_TRUE(tracegen::WriteSyntheticTrace(path, synthetic).ok());
  Report report;
  ASSERT_TRUE(AnalyzeTrace(path, AnalysisOptions{}, &report).ok());
  ASSERT_EQ(report.trace.meta.cpus, 64);
  std::string text = ReportToText(report);
  EXPECT_LE(LongestLine(text), 120u) << text;
  // CPUs are rows: the CPU-time table has one line per CPU plus "all".
  EXPECT_THAT(text, HasSubstr("\n   63 "));
  EXPECT_THAT(text, HasSubstr("\n  all "));
  // Each CPU lost events once: one block says so with CPU ranges, not 64 lines.
  EXPECT_THAT(text, HasSubstr("on CPUs 0-63."));
  EXPECT_EQ(text.find("lost:     cpu"), std::string::npos);
  // In an 80-column terminal, wide tables fold into parts and free text wraps.
  std::string narrow = ReportToText(report, {.width = 80});
  EXPECT_LE(LongestLine(narrow), 80u) << narrow;
  // The NAPI table's second part starts with the columns that name its rows.
  EXPECT_THAT(narrow, HasSubstr("\n  dev  napi               cpu poll p50 poll max skbs\n"));
  std::string summary = ReportToText(report, {.summary = true});
  EXPECT_LE(LongestLine(summary), 120u) << summary;
  EXPECT_EQ(summary.find("CPU time, share"), std::string::npos);  // no tables
  EXPECT_THAT(summary, HasSubstr("\n  CPU time: all CPUs: idle "));
  std::filesystem::remove_all(dir);
}

// A table wider than the terminal: free text last wraps under its column when the other
// columns leave it room, else the columns after the keys fold into parts.
TEST(ReportTextLayout, WideTablesWrapTheirFreeTextOrFoldTheirColumns) {
  internal::TextTable text({"cpu", "<vec", "count", "<ran in"}, 2);
  text.Add({"0", "NET_RX", "117", "task_bh_enable 76, irq_exit 39, ksoftirqd 2"});
  EXPECT_EQ(text.Lines(0), (std::vector<std::string>{
                               "  cpu vec    count ran in",
                               "    0 NET_RX   117 task_bh_enable 76, irq_exit 39, ksoftirqd 2"}));
  EXPECT_EQ(text.Lines(45),
            (std::vector<std::string>{"  cpu vec    count ran in",
                                      "    0 NET_RX   117 task_bh_enable 76,",
                                      "                   irq_exit 39, ksoftirqd 2"}));
  internal::TextTable numbers({"cpu", "span", "idle", "hard IRQ", "softirq"});
  numbers.Add({"0", "1.13 s", "87.7%", "0.6%", "1.3%"});
  numbers.Add({"all", "2.26 s", "80.1%", "0.7%", "1.2%"});
  EXPECT_EQ(numbers.Lines(25),
            (std::vector<std::string>{"  cpu   span  idle", "    0 1.13 s 87.7%",
                                      "  all 2.26 s 80.1%", "", "  cpu hard IRQ softirq",
                                      "    0     0.6%    1.3%", "  all     0.7%    1.2%"}));
  EXPECT_EQ(numbers.Lines(80).size(), 3u);  // fits: one part
}

TEST(ReportTextLayout, NaturalOrderWrappingAndCpuRanges) {
  EXPECT_TRUE(internal::NaturalLess("ksoftirqd/2", "ksoftirqd/10"));
  EXPECT_FALSE(internal::NaturalLess("ksoftirqd/10", "ksoftirqd/2"));
  EXPECT_TRUE(internal::NaturalLess("irq/9-eth0", "irq/30-eth0"));
  EXPECT_TRUE(internal::NaturalLess("a", "b"));
  EXPECT_FALSE(internal::NaturalLess("x1", "x1"));
  EXPECT_EQ(internal::CpuRanges({7, 0, 1, 2, 5, 8}), "0-2,5,7-8");
  std::vector<std::string> lines = internal::Wrap("one two three four five", 14, "  error ");
  EXPECT_EQ(lines, (std::vector<std::string>{"  error one", "        two", "        three",
                                             "        four", "        five"}));
  EXPECT_EQ(internal::Wrap("one two three", 0, "> "), std::vector<std::string>{"> one two three"});
}

// The summary counts threads, not rows (a row per thread and CPU), in the right number.
TEST(ReportTextLayout, SummaryCountsWokenThreadsAndWakeups) {
  Report report;
  WakeLatencyRow row;
  row.pid = 18;
  row.comm = "migration/0";
  row.latency.count = 1;
  row.latency.max_ns = 4100;
  report.rt_wake_latency.push_back(row);
  TextReportOptions summary;
  summary.summary = true;
  EXPECT_THAT(ReportToText(report, summary), HasSubstr("wake latency: 1 thread woken 1 time;"));
  row.cpu = 1;
  row.latency.count = 2;
  report.rt_wake_latency.push_back(row);  // the same thread on another CPU
  EXPECT_THAT(ReportToText(report, summary), HasSubstr("wake latency: 1 thread woken 3 times;"));
}

// An x86 vector's network chain is named as a vector, not as a NIC IRQ of the same number.
TEST(ReportTextLayout, AnX86VectorsChainIsNamedAVector) {
  Report report;
  NetPathRow nic;
  nic.irq = {236, false};
  nic.handler = "eth1-rx-3";
  nic.irq_cpus = {0};
  NetPathRow timer = nic;
  timer.irq = {236, true};
  timer.handler = "local_timer";
  timer.irq_cpus = {1};
  report.net_path = {nic, timer};
  std::string text = ReportToText(report, {.width = 200});
  EXPECT_THAT(text, HasSubstr("\n  IRQ 236 eth1-rx-3 (CPU 0) -> "));
  EXPECT_THAT(text, HasSubstr("\n  x86 vector 236 local_timer (CPU 1) -> "));
  EXPECT_THAT(ReportToText(report, {.summary = true}),
              HasSubstr("1 NIC IRQ chain and 1 x86 vector chain, 0 starved by RT tasks"));
}

// The hard-IRQ run-time table and its summary line mark an x86 vector as one: its number is
// not a device IRQ's ("IRQ 251 call_function_single" was printed for a vector).
TEST(ReportTextLayout, HardIrqRunTimeMarksX86Vectors) {
  Report report;
  HardirqRuntimeRow nic;
  nic.irq = {41, false};
  nic.name = "eth0-rx-0";
  nic.run.count = 3;
  nic.run.max_ns = 2000;
  HardirqRuntimeRow ipi = nic;
  ipi.cpu = 1;
  ipi.irq = {251, true};
  ipi.name = "call_function_single";
  ipi.run.max_ns = 9000;
  report.hardirq_runtime = {nic, ipi};
  std::string text = ReportToText(report, {.width = 80});
  EXPECT_THAT(text, ContainsRegex("\n +0 +41 eth0-rx-0 "));
  EXPECT_THAT(text, ContainsRegex("\n +1 v251 call_function_single "));
  EXPECT_THAT(text, HasSubstr("\n  (vN: x86 vector N,"));
  EXPECT_THAT(ReportToText(report, {.summary = true}),
              HasSubstr("(CPU1 x86 vector 251 call_function_single, at "));
  report.hardirq_runtime = {nic};
  EXPECT_THAT(ReportToText(report, {.width = 80}), Not(HasSubstr("(vN: x86 vector N,")));
}

// A duration keeps its unit on its line: "idle 1.0" then "us" on the next read as a count.
TEST(ReportTextLayout, ADurationIsNeverSplitFromItsUnit) {
  EXPECT_EQ(internal::Wrap("held by idle 1.0 us, then 25.4 ms; 3 s.", 16, ""),
            (std::vector<std::string>{"held by idle", "1.0 us, then", "25.4 ms; 3 s."}));
  // A unit-like word after a word that is not a number is a word of its own.
  EXPECT_EQ(internal::Wrap("the us and ms", 6, ""), (std::vector<std::string>{"the us", "and ms"}));
}

// Issue 21: "iperf3 (pid 10780) 570 us (49%, lower_prio)", "hardirq hard IRQ local_timer (236)".
TEST(Phrasing, RolesInPlainWordsAndNoDoubledWords) {
  BlameItem task;
  task.pid = 10780;
  task.prio = 120;
  task.name = "iperf3";
  task.time_ns = 570'000;
  const int16_t kRt98 = 1;
  EXPECT_EQ(DescribeWakeHolder(task, 1'140'000, kRt98),
            "iperf3 (pid 10780) 570 us (50%, a lower-priority task that could not be preempted)");
  BlameItem timer;
  timer.kind = ContextKind::kHardirq;
  timer.irq = {236, false};
  timer.name = "local_timer";
  timer.time_ns = 114'000;
  EXPECT_EQ(DescribeWakeHolder(timer, 1'140'000, kRt98), "hard IRQ local_timer (236) 114 us (10%)");
  timer.irq.x86_vector = true;  // irq_vectors:local_timer_entry, not a device IRQ of that number
  EXPECT_EQ(DescribeWakeHolder(timer, 1'140'000, kRt98),
            "x86 vector local_timer (236) 114 us (10%)");
  BlameItem softirq;
  softirq.kind = ContextKind::kSoftirq;
  softirq.vec = kHrtimer;
  softirq.time_ns = 249'000;
  EXPECT_EQ(DescribeBlameHolder(softirq), "softirq HRTIMER");
  EXPECT_EQ(DescribeWakeHolder(softirq, 0, kRt98), "softirq HRTIMER 249 us");
  BlameItem idle;
  idle.time_ns = 17'600;
  EXPECT_EQ(DescribeWakeHolder(idle, 176'000, kRt98), "idle 17.6 us (10%)");
  EXPECT_EQ(WakeBlameRoleWords("higher_prio"), "a task of the same or a higher priority");
}

}  // namespace
}  // namespace napiscope
