// Lost events in the report: how much each CPU lost (events and time), and findings that
// overlap a gap say so (docs/report-schema.md, docs/robustness.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/lost_events_findings.h"
#include "napiscope/analysis_session.h"
#include "napiscope/format.h"
#include "napiscope/report_render.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::TestData;
using ::testing::HasSubstr;

constexpr TimestampNs kT = 5'000'000'000;  // the scenario's T (testdata/scenarios/README.md)

TEST(LostEvents, ReportSaysPerCpuHowMuchWasLost) {
  Report report;
  ASSERT_TRUE(AnalyzeTrace(TestData("scenarios/missed_events_gap.dat"), {}, &report).ok());
  // CPU0 lost 3000 events between T+2000 and T+60000; CPU1 an unknown number between
  // T+10000 and T+30000.
  ASSERT_EQ(report.trace.missed_per_cpu.size(), 2u);
  EXPECT_EQ(report.trace.missed_per_cpu[0].lost_ns, 58'000);
  EXPECT_EQ(report.trace.missed_per_cpu[0].events, 3000);
  EXPECT_EQ(report.trace.missed_per_cpu[1].lost_ns, 20'000);
  EXPECT_TRUE(report.trace.missed_per_cpu[1].some_unknown);

  std::string text = ReportToText(report);
  // One block below the findings: totals with CPU ranges and the worst CPU (issue 21).
  EXPECT_THAT(text, HasSubstr("\nlost and missing events:\n  lost      at least 3000 events in 2 "
                              "gaps on CPUs 0-1.\n"));
  EXPECT_THAT(text, HasSubstr("\n            Most lost inside a traced span: CPU0, 3000 events over " +
                              FormatDuration(58'000) + " ("));
  EXPECT_LT(text.find("findings"), text.find("lost and missing events"));
  nlohmann::json json = ReportToJson(report);
  ASSERT_EQ(json["trace"]["missed_events_per_cpu"].size(), 2u);
  EXPECT_EQ(json["trace"]["missed_events_per_cpu"][0]["lost_ns"], 58'000);
  EXPECT_EQ(json["trace"]["missed_events_per_cpu"][1]["events"], 0);
  EXPECT_EQ(json["trace"]["missed_events_per_cpu"][1]["some_unknown"], true);
  EXPECT_EQ(json["trace"]["skipped_records"], 0);
  EXPECT_TRUE(json["trace"]["warnings"].empty());
}

Finding FindingAt(int cpu, TimestampNs start_ns, TimestampNs end_ns) {
  Finding finding;
  finding.rule = "test";
  finding.summary = "Something happened.";
  finding.cpu = cpu;
  finding.start_ns = start_ns;
  finding.end_ns = end_ns;
  return finding;
}

TEST(LostEvents, FindingsOverlappingAGapSaySo) {
  std::vector<MissedEventsMark> missed = {{0, kT + 60'000, kT + 2'000, 3000},
                                          {1, kT + 30'000, kT + 10'000, -1},
                                          {1, kT + 500, -1, 7}};  // CPU1 starts with a gap
  std::vector<Finding> findings = {
      FindingAt(0, kT + 1'500, kT + 70'000),   // spans CPU0's gap
      FindingAt(1, kT + 31'000, kT + 40'000),  // after CPU1's gaps
      FindingAt(-1, kT, kT + 100'000),         // about no one CPU: every gap counts
      FindingAt(0, 0, 0),                      // no interval
  };
  internal::NoteLostEvents(missed, kT, &findings);

  EXPECT_EQ(findings[0].evidence["lost_events"],
            (nlohmann::json{{"gaps", 1}, {"events", 3000}, {"lost_ns", 58'000}, {"cpus", {0}}}));
  EXPECT_THAT(findings[0].summary,
              HasSubstr("Events were lost inside this interval (" + FormatDuration(58'000) +
                        " on CPU0)"));
  EXPECT_FALSE(findings[1].evidence.contains("lost_events"));
  EXPECT_EQ(findings[1].summary, "Something happened.");
  EXPECT_EQ(findings[2].evidence["lost_events"],
            (nlohmann::json{
                {"gaps", 3}, {"events", -1}, {"lost_ns", 58'000 + 20'000 + 500}, {"cpus", {0, 1}}}));
  EXPECT_THAT(findings[2].summary, HasSubstr("on CPU0, CPU1)"));
  EXPECT_FALSE(findings[3].evidence.contains("lost_events"));
}

}  // namespace
}  // namespace napiscope
