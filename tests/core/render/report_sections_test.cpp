// The report JSON sections of each analysis, as its descriptor names them: present in every
// report, and empty when the analysis did not run for want of its events.
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/analysis_descriptor.h"
#include "napiscope/analysis_session.h"
#include "napiscope/report_render.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

class ReportSectionsTest : public ::testing::TestWithParam<std::string> {};

// An analysis that did not run reported rows from the events it had: the JSON of
// veth-threaded-napi (no irq_handler_entry) held a network path row for IRQ 251, without a
// handler, that the text report (network path priorities: not available) never showed.
TEST_P(ReportSectionsTest, AnAnalysisThatDidNotRunHasEmptySections) {
  Report report;
  ASSERT_TRUE(AnalyzeTrace(testing::TestData(GetParam()), AnalysisOptions{}, &report).ok());
  nlohmann::json json = ReportToJson(report);
  int not_run = 0;
  for (const AnalysisDescriptor& analysis : AnalysisDescriptors()) {
    bool ran = AnalysisRan(report.trace, analysis.id);
    not_run += ran ? 0 : 1;
    for (const ReportSection& entry : analysis.sections) {
      std::string_view section = entry.name;
      SCOPED_TRACE(std::string(analysis.key) + ": " + std::string(section));
      ASSERT_TRUE(json.contains(section));
      ASSERT_TRUE(json[section].is_array());
      if (!ran) {
        EXPECT_TRUE(json[section].empty());
        std::string not_listed = std::string(section) + "_not_listed";
        if (json.contains(not_listed)) {
          EXPECT_EQ(json[not_listed], 0);
        }
      }
    }
  }
  EXPECT_GT(not_run, 0);  // each trace here lacks the events of some analysis
}

INSTANTIATE_TEST_SUITE_P(TracesLackingEvents, ReportSectionsTest,
                         ::testing::Values("real/veth-threaded-napi.dat",
                                           "scenarios/missed_events_gap.dat",
                                           "scenarios/irq_threads_bouncing.dat",
                                           "text/trace-cmd-stacktrace.txt"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return testing::TestDataName(param.param);
                         });

// Every section a descriptor names is a list of rows of the report, and no two analyses share
// one.
TEST(ReportSections, TheDescriptorsNameEachSectionOnce) {
  Report report;
  ASSERT_TRUE(
      AnalyzeTrace(testing::TestData("real/veth-softirq-napi.dat"), AnalysisOptions{}, &report)
          .ok());
  nlohmann::json json = ReportToJson(report);
  std::set<std::string_view> seen;
  for (const AnalysisDescriptor& analysis : AnalysisDescriptors()) {
    for (const ReportSection& entry : analysis.sections) {
      std::string_view section = entry.name;
      EXPECT_TRUE(json.contains(section)) << section;
      EXPECT_TRUE(seen.insert(section).second) << section << " named twice";
    }
  }
  // And every list of rows the report has belongs to an analysis.
  std::set<std::string_view> rows;
  for (const auto& [key, value] : json.items()) {
    if (value.is_array() && key != "analyses" && key != "cpus" && key != "findings") {
      rows.insert(key);
    }
  }
  EXPECT_EQ(rows, seen);
}

}  // namespace
}  // namespace napiscope
