#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <absl/strings/str_split.h>

#include "napiscope/report_diff.h"

namespace napiscope {
namespace {

using ::testing::HasSubstr;

// Waits of CPU1 NET_RX: p90 as p50 and p99.9 as p99 unless given, over `count` samples.
Report WithLatency(int64_t p50_ns, int64_t p99_ns, int64_t max_ns, int64_t count = 10'000,
                   int64_t p999_ns = 0) {
  Report report;
  SoftirqLatencyRow row;
  row.cpu = 1;
  row.vec = kNetRx;
  row.delay.count = count;
  row.delay.p50_ns = p50_ns;
  row.delay.p90_ns = p50_ns;
  row.delay.p99_ns = p99_ns;
  row.delay.p999_ns = std::max(p99_ns, p999_ns);
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
  // After's p99.9 (a thousand waits) beyond before's max: the max's rise is more than one wait.
  ReportDiff diff = DiffReports(WithLatency(10'000, 400'000, 2'000'000, 1'000'000),
                                WithLatency(10'000, 200'000, 3'000'000, 1'000'000, 2'500'000));
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
  EXPECT_THAT(text, ::testing::StartsWith("1 regressed, 1 improved, 1 unchanged; findings: 0 "
                                          "new, 0 worse, 0 gone\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "softirq latency max +CPU1 NET_RX +2.00 ms +3.00 ms +\\+1.00 ms \\(\\+50.0%\\) "
                        "+1000000 -> 1000000 +REGRESSED\n"));
}

// Two recordings of one workload move percentiles by a few percent: the first line said
// "5 regressed, 9 improved" for a +0.3% p50. Within the noise band they count as unchanged,
// and a gate tighter than the band still sees those that moved the worse way.
TEST(ReportDiff, ChangesWithinTheNoiseCountAsUnchangedAndATighterGateStillSeesThem) {
  Report before = WithLatency(10'000, 400'000, 2'000'000, 1'000'000);
  // +3%, -5% (the band's edge), +10% for the max, one wait: not significant.
  Report after = WithLatency(10'300, 380'000, 2'200'000, 1'000'000);
  ReportDiff diff = DiffReports(before, after);
  EXPECT_EQ(diff.noise_percent, kDefaultNoisePercent);
  EXPECT_EQ(Find(diff, "softirq_latency_p50_ns").verdict, ChangeVerdict::kWithinNoise);
  EXPECT_EQ(Find(diff, "softirq_latency_p99_ns").verdict, ChangeVerdict::kWithinNoise);
  EXPECT_EQ(Find(diff, "softirq_latency_max_ns").verdict, ChangeVerdict::kNotSignificant);
  EXPECT_TRUE(Find(diff, "softirq_latency_p50_ns").MovedWorse());
  EXPECT_FALSE(Find(diff, "softirq_latency_max_ns").MovedWorse());
  EXPECT_FALSE(Find(diff, "softirq_latency_p99_ns").MovedWorse());
  DiffCounts counts = CountVerdicts(diff);
  EXPECT_EQ(counts.regressed, 0);
  EXPECT_EQ(counts.improved, 0);
  EXPECT_EQ(counts.unchanged, 2);
  EXPECT_EQ(counts.within_noise, 2);
  EXPECT_EQ(counts.not_significant, 1);
  EXPECT_EQ(CountRegressions(diff, 0), 1);  // the p50's +3%; not the max's +10%
  EXPECT_EQ(CountRegressions(diff, 2), 1);
  EXPECT_EQ(CountRegressions(diff, 5), 0);
  std::string text = DiffToText(diff);
  EXPECT_THAT(text, ::testing::StartsWith("0 regressed, 0 improved, 2 unchanged (2 within 5%), 1 "
                                          "not significant; findings: 0 new, 0 worse, 0 gone\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "softirq latency p50 +CPU1 NET_RX +10.0 us +10.3 us +\\+300 ns "
                        "\\(\\+3.0%\\) +1000000 -> 1000000 +within 5%\n"));
  EXPECT_THAT(text, HasSubstr("a change of at most 5% (points for a share) is within noise"));
  nlohmann::json json = DiffToJson(diff);
  EXPECT_EQ(json["noise_percent"], 5);
  EXPECT_EQ(json["counts"]["within_noise"], 2);
  EXPECT_EQ(json["counts"]["unchanged"], 2);
  std::string markdown = DiffToMarkdown(diff);
  EXPECT_THAT(markdown, ::testing::Not(HasSubstr("| softirq latency p50 |")));
  EXPECT_THAT(markdown, ::testing::Not(HasSubstr("| softirq latency max |")));
  EXPECT_THAT(markdown, HasSubstr("2 metrics unchanged (2 within 5%).\n"));

  // --noise 0: every change judged, as before the band.
  ReportDiff exact = DiffReports(before, after, 0);
  EXPECT_EQ(Find(exact, "softirq_latency_p50_ns").verdict, ChangeVerdict::kRegressed);
  EXPECT_EQ(Find(exact, "softirq_latency_p99_ns").verdict, ChangeVerdict::kImproved);
  EXPECT_EQ(CountVerdicts(exact).within_noise, 0);
  EXPECT_THAT(DiffToText(exact),
              ::testing::StartsWith("1 regressed, 1 improved, 0 unchanged, 1 not significant;"));
}

// In an 80-column terminal each row of the metrics table (about 100 columns) broke where the
// terminal chose: narrower than a row, each metric takes two lines, its numbers under it.
TEST(ReportDiff, NarrowerThanARowEachMetricTakesTwoLines) {
  ReportDiff diff =
      DiffReports(WithLatency(10'000, 400'000, 2'000'000),
                  WithLatency(10'000, 200'000, 3'000'000, 10'000, 2'500'000));
  std::string narrow = DiffToText(diff, 60);
  const std::string kOneLine =
      "\n  softirq latency max  CPU1 NET_RX  2.00 ms  3.00 ms  +1.00 ms (+50.0%)  10000 -> 10000  "
      "REGRESSED\n";
  EXPECT_THAT(DiffToText(diff, 120), HasSubstr(kOneLine));
  EXPECT_THAT(DiffToText(diff, 0), HasSubstr(kOneLine));  // 0: never narrower than a row
  EXPECT_THAT(narrow, HasSubstr("\n  softirq latency max  CPU1 NET_RX  REGRESSED\n"
                                "      2.00 ms  3.00 ms  +1.00 ms (+50.0%)  10000 -> 10000\n"));
  EXPECT_THAT(narrow, HasSubstr("\n  metric               subject\n"
                                "       before    after  change                    samples\n"));
  EXPECT_THAT(narrow, HasSubstr("\n  softirq latency p50  CPU1 NET_RX\n"));  // unchanged: no mark
  // Every line but the first (the counts, one line for `head -1`) fits.
  std::vector<std::string> lines = absl::StrSplit(narrow, '\n');
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_LE(lines[i].size(), 60u) << lines[i];
}

TEST(ReportDiff, SubjectsOnOneSideAndSharesComparedInPoints) {
  Report before, after = WithLatency(1'000, 2'000, 3'000);
  ThreadActivityRow thread;
  thread.task_class = TaskClass::kIrqThread;
  thread.comm = "irq/30-eth0";
  thread.irq = 30;
  thread.activations = 1000;
  before.irq_threads.push_back(thread);
  thread.cross_cpu_activations = 400;
  after.irq_threads.push_back(thread);
  ReportDiff diff = DiffReports(before, after);
  const DiffRow& share = Find(diff, "irq_thread_cross_cpu_share");
  EXPECT_EQ(share.subject, "irq/30-eth0");
  EXPECT_EQ(share.verdict, ChangeVerdict::kRegressed);
  EXPECT_FALSE(share.RelativeChange().has_value());  // from 0
  EXPECT_DOUBLE_EQ(*share.ChangePercent(), 40);      // but 40 points
  EXPECT_EQ(Find(diff, "softirq_latency_max_ns").verdict, ChangeVerdict::kOnlyAfter);
  EXPECT_EQ(CountRegressions(diff, 39), 1);  // a share's gate is in points
  EXPECT_EQ(CountRegressions(diff, 40), 0);
  EXPECT_THAT(DiffToText(diff), ::testing::ContainsRegex("0.0% +40.0% +\\+40.0 pp +1000 -> 1000"));
  nlohmann::json json = DiffToJson(diff);
  EXPECT_EQ(json["rows"][0]["before"], nullptr);
  EXPECT_EQ(json["rows"][0]["verdict"], "only_after");
}

// The order people read: "most changed first" was regressed before improved (a -90% after a
// +50%); now the judged changes by size whatever their direction; a p99 over too few samples
// is shown, not judged.
TEST(ReportDiff, RowsOrderedBySizeAndSupportAndThinPercentilesNotJudged) {
  auto row = [](int cpu, int64_t count, int64_t p50, int64_t p99, int64_t max) {
    SoftirqLatencyRow r;
    r.cpu = cpu;
    r.vec = kNetRx;
    r.delay = {count, 0, p50, p50, p99, p99, max, 0, true};
    return r;
  };
  Report before, after;
  before.softirq_latency = {row(0, 13000, 10'000, 100'000, 1'000'000),
                            row(1, 35, 10'000, 100'000, 1'000'000),
                            row(2, 5000, 10'000, 100'000, 1'000'000)};
  after.softirq_latency = {row(0, 13000, 15'000, 100'000, 1'000'000),   // p50 +50 %, 13k
                           row(1, 35, 30'000, 400'000, 1'000'000),      // p50 +200 % over 35
                           row(2, 5000, 1'000, 100'000, 1'000'000)};    // p50 -90 %
  ReportDiff diff = DiffReports(before, after);
  const DiffRow* thin_p99 = nullptr;
  for (const DiffRow& r : diff.rows) {
    if (r.metric == "softirq_latency_p99_ns" && r.subject == "CPU1 NET_RX") thin_p99 = &r;
  }
  ASSERT_NE(thin_p99, nullptr);
  EXPECT_EQ(thin_p99->verdict, ChangeVerdict::kFewSamples);  // 35 < 100
  EXPECT_EQ(thin_p99->before_samples, 35);
  DiffCounts counts = CountVerdicts(diff);
  EXPECT_EQ(counts.regressed, 2);
  EXPECT_EQ(counts.improved, 1);
  EXPECT_EQ(counts.few_samples, 1);
  EXPECT_EQ(counts.unchanged, 5);
  std::vector<const DiffRow*> order = RowsByImportance(diff);
  ASSERT_GE(order.size(), 4u);
  // +200 % (over 35 samples, but significant), -90 %, +50 %.
  EXPECT_EQ(order[0]->subject, "CPU1 NET_RX");
  EXPECT_EQ(order[0]->metric, "softirq_latency_p50_ns");
  EXPECT_EQ(order[1]->subject, "CPU2 NET_RX");
  EXPECT_EQ(order[1]->verdict, ChangeVerdict::kImproved);
  EXPECT_EQ(order[2]->subject, "CPU0 NET_RX");
  EXPECT_EQ(order[2]->verdict, ChangeVerdict::kRegressed);
  EXPECT_EQ(order[3]->verdict, ChangeVerdict::kFewSamples);
  std::string text = DiffToText(diff);
  EXPECT_THAT(text, ::testing::StartsWith("2 regressed, 1 improved, 5 unchanged, 1 not judged "
                                          "(too few samples); findings: 0 new, 0 worse, 0 gone\n"));
  EXPECT_LT(text.find("CPU1 NET_RX"), text.find("CPU2 NET_RX"));
  EXPECT_LT(text.find("CPU2 NET_RX"), text.find("CPU0 NET_RX"));
  EXPECT_EQ(CountRegressions(diff, 0), 2);
}

// Issue 66: a max from 39 and 98 waits was REGRESSED (+50%) and failed a 10% gate while the
// p99 of the same waits was "few samples"; an idle share of 0.0% -> 0.1% read "+85.5%".
TEST(ReportDiff, ChangesTheSamplesCannotTellFromChanceAreNotSignificant) {
  Report before = WithLatency(10'000, 60'000, 100'000, 39);
  Report after = WithLatency(10'500, 70'000, 150'000, 98);
  CpuTimeRow cpu;
  cpu.span_ns = 1'000'000'000;
  cpu.idle_ns = 400'000;
  cpu.other_task_ns = cpu.span_ns - cpu.idle_ns;
  before.cpu_time = {cpu};
  cpu.idle_ns = 1'000'000;
  cpu.other_task_ns = cpu.span_ns - cpu.idle_ns;
  after.cpu_time = {cpu};
  ReportDiff diff = DiffReports(before, after);
  const DiffRow& max = Find(diff, "softirq_latency_max_ns");
  EXPECT_EQ(max.verdict, ChangeVerdict::kNotSignificant);
  EXPECT_EQ(max.significant, false);
  EXPECT_EQ(Find(diff, "softirq_latency_p50_ns").verdict, ChangeVerdict::kNotSignificant);
  EXPECT_EQ(CountRegressions(diff, 10), 0);
  EXPECT_EQ(CountRegressions(diff, 0), 0);
  EXPECT_EQ(CountVerdicts(diff).not_significant, 2);
  std::string text = DiffToText(diff, 0);
  EXPECT_THAT(text, ::testing::StartsWith("0 regressed, 0 improved, 2 unchanged, 2 not "
                                          "significant, 1 not judged (too few samples);"));
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "softirq latency max +CPU1 NET_RX +100 us +150 us +\\+50.0 us "
                        "\\(\\+50.0%\\) +39 -> 98 +not significant\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("CPU time share +idle +0.0% +0.1% +\\+0.1 pp +changed\n"));
  nlohmann::json json = DiffToJson(diff);
  EXPECT_EQ(json["counts"]["not_significant"], 2);
  for (const nlohmann::json& row : json["rows"]) {
    if (row["metric"] == "softirq_latency_max_ns") {
      EXPECT_EQ(row["verdict"], "not_significant");
      EXPECT_EQ(row["significant"], false);
      EXPECT_DOUBLE_EQ(row["change_percent"].get<double>(), 50);
    }
    if (row["metric"] == "cpu_time_share" && row["subject"] == "idle") {
      EXPECT_NEAR(row["change_percent"].get<double>(), 0.06, 1e-9);  // points
      EXPECT_EQ(row["significant"], nullptr);                         // neutral: not judged
    }
  }
  std::string markdown = DiffToMarkdown(diff);
  EXPECT_THAT(markdown, ::testing::Not(HasSubstr("| softirq latency max |")));
  EXPECT_THAT(markdown, HasSubstr("2 metrics moved by less than their samples can tell"));

  // The same change over 10k waits each, with the p99.9 beyond before's max, is judged.
  ReportDiff supported = DiffReports(WithLatency(10'000, 60'000, 100'000),
                                     WithLatency(10'000, 70'000, 150'000, 10'000, 120'000));
  EXPECT_EQ(Find(supported, "softirq_latency_max_ns").verdict, ChangeVerdict::kRegressed);
  EXPECT_EQ(Find(supported, "softirq_latency_p99_ns").verdict, ChangeVerdict::kRegressed);
  EXPECT_EQ(CountRegressions(supported, 10), 2);
}

TEST(ReportDiff, FindingsNewWorseGoneAndWarningsWhenTracesDoNotCompare) {
  auto finding = [](std::string rule, int cpu, Severity severity) {
    Finding f;
    f.rule = std::move(rule);
    f.cpu = cpu;
    f.severity = severity;
    f.summary = f.rule + " on " + std::to_string(cpu);
    return f;
  };
  Report before, after;
  before.trace.meta.cpus = 4;
  after.trace.meta.cpus = 16;
  before.trace.meta.kernel_release = "6.1.0";
  after.trace.meta.kernel_release = "6.12.0";
  before.findings = {finding("softirq-latency", 1, Severity::kWarning),
                     finding("ksoftirqd-blocked", 2, Severity::kWarning)};
  after.findings = {finding("softirq-latency", 1, Severity::kError),
                    finding("rt-wake-latency", 0, Severity::kWarning)};
  CpuTimeRow cpu3;
  cpu3.cpu = 3;
  cpu3.span_ns = 1'000'000;
  after.cpu_time = {cpu3};
  CpuMissedSummary lost;
  lost.cpu = 3;
  lost.gaps = 1;
  lost.lost_ns = 600'000;
  after.trace.missed_per_cpu = {lost};
  ReportDiff diff = DiffReports(before, after);
  ASSERT_EQ(diff.findings.size(), 3u);
  EXPECT_EQ(diff.findings[0].change, FindingChange::kNew);
  EXPECT_EQ(diff.findings[0].rule, "rt-wake-latency");
  EXPECT_EQ(diff.findings[1].change, FindingChange::kWorse);
  EXPECT_EQ(diff.findings[1].severity, Severity::kError);
  EXPECT_EQ(diff.findings[2].change, FindingChange::kGone);
  EXPECT_EQ(diff.findings[2].rule, "ksoftirqd-blocked");
  ASSERT_EQ(diff.warnings.size(), 3u);
  EXPECT_THAT(diff.warnings[0], HasSubstr("different CPU counts (4 before, 16 after)"));
  EXPECT_THAT(diff.warnings[1], HasSubstr("kernels differ (6.1.0 before, 6.12.0 after)"));
  EXPECT_THAT(diff.warnings[2], HasSubstr("before: none; after: up to 38% of CPU3's time"));
  std::string text = DiffToText(diff);
  EXPECT_THAT(text, HasSubstr("findings: 1 new, 1 worse, 1 gone\n"));
  EXPECT_THAT(text, HasSubstr("\n  new    warning  rt-wake-latency on 0\n"));
  nlohmann::json json = DiffToJson(diff);
  EXPECT_EQ(json["findings"][1]["change"], "worse");
  EXPECT_EQ(json["warnings"].size(), 3u);
}

// An analysis that ran on one trace only because the other did not record its events made
// its rows "new" or "gone" without a word: a warning names the events and the analyses.
TEST(ReportDiff, WarnsOfAnalysesOneTraceCouldNotRunForWantOfEvents) {
  auto analysis = [](std::string id, std::string title, std::vector<std::string> missing) {
    AnalysisAvailability a;
    a.id = std::move(id);
    a.title = std::move(title);
    a.available = missing.empty();
    a.missing_required = std::move(missing);
    return a;
  };
  Report before, after;
  before.trace.analyses = {
      analysis("softirq_latency", "softirq raise-to-entry latency", {"irq:softirq_entry"}),
      analysis("napi", "NAPI polling and budget", {"napi:napi_poll"}),
      analysis("ksoftirqd_blocked", "blocked ksoftirqd chains", {"irq:softirq_entry"}),
      analysis("rt_wake_latency", "RT wake latency", {"sched:sched_switch"})};
  after.trace.analyses = {
      analysis("softirq_latency", "softirq raise-to-entry latency", {}),
      analysis("napi", "NAPI polling and budget", {}),
      analysis("ksoftirqd_blocked", "blocked ksoftirqd chains", {}),
      analysis("rt_wake_latency", "RT wake latency", {"sched:sched_switch"})};
  ReportDiff diff = DiffReports(before, after);
  ASSERT_EQ(diff.warnings.size(), 1u);
  EXPECT_EQ(diff.warnings[0],
            "the before trace has no irq:softirq_entry, napi:napi_poll events, so these did not "
            "run on it: softirq raise-to-entry latency; NAPI polling and budget; blocked "
            "ksoftirqd chains; their rows are in the after trace only because of the recording, "
            "not because nothing happened");
  ReportDiff reversed = DiffReports(after, before);
  ASSERT_EQ(reversed.warnings.size(), 1u);
  EXPECT_THAT(reversed.warnings[0], HasSubstr("the after trace has no irq:softirq_entry, "));
  EXPECT_THAT(reversed.warnings[0], HasSubstr("in the before trace only"));
  EXPECT_TRUE(DiffReports(before, before).warnings.empty());
}

}  // namespace
}  // namespace napiscope
