// Golden output of `napiscope report` on a 2-CPU and a 16-CPU recording: the default layout,
// --summary and --top. The expected files are testdata/real/NAME.report[-MODE].txt; run with
// NAPISCOPE_UPDATE_GOLDEN=1 to rewrite them after an intended change, and review the diff.
#include <algorithm>
#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;

struct Golden {
  const char* trace;  // under testdata/real, without .dat
  const char* mode;   // suffix of the expected file
  const char* flags;
};

class ReportGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(ReportGolden, MatchesTheExpectedText) {
  const Golden& golden = GetParam();
  // Run from testdata/ with a relative path, so the text does not depend on the checkout.
  auto result = RunCommand("cd " + TestData("") + " && " + CliPath() + " report --quiet " +
                           golden.flags + " real/" + golden.trace + ".dat");
  ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 2) << result.err;
  EXPECT_EQ(result.err, "");
  std::string expected_path =
      TestData(std::string("real/") + golden.trace + ".report" + golden.mode + ".txt");
  if (const char* update = std::getenv("NAPISCOPE_UPDATE_GOLDEN"); update && *update == '1') {
    testing::WriteFile(expected_path, result.out);
  }
  EXPECT_EQ(result.out, ReadFile(expected_path)) << "compare with " << expected_path;
}

INSTANTIATE_TEST_SUITE_P(
    TwoAndSixteenCpus, ReportGolden,
    ::testing::Values(Golden{"veth-softirq-napi", "", ""},
                      Golden{"veth-softirq-napi", "-summary", "--summary"},
                      Golden{"veth-softirq-napi", "-top3", "--top 3"},
                      Golden{"server16-softirq-napi", "", ""},
                      Golden{"server16-softirq-napi", "-summary", "--summary"},
                      Golden{"server16-softirq-napi", "-top3", "--top 3"}),
    [](const ::testing::TestParamInfo<Golden>& param_info) {
      std::string name = std::string(param_info.param.trace) + param_info.param.mode;
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

// The 16-CPU report reads in a screen or two before the tables (issue 21): the header,
// findings and the lost/missing block, and no line past 120 columns anywhere.
TEST(ReportLayout, SixteenCpusFitsBeforeTheTablesAndUnder120Columns) {
  auto result = RunCommand(CliPath() + " report --quiet " +
                           TestData("real/server16-softirq-napi.dat"));
  ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 2) << result.err;
  size_t tables = result.out.find("\nsoftirq raise-to-entry latency");
  ASSERT_NE(tables, std::string::npos);
  std::string before_tables = result.out.substr(0, tables);
  EXPECT_LT(std::count(before_tables.begin(), before_tables.end(), '\n'), 80) << before_tables;
  EXPECT_LT(result.out.find("findings"), result.out.find("lost and missing events:"));
  size_t start = 0, longest = 0;
  for (size_t end; (end = result.out.find('\n', start)) != std::string::npos; start = end + 1) {
    longest = std::max(longest, end - start);
  }
  EXPECT_LE(longest, 120u);
  // The leaks and doubled words are gone.
  for (const char* leak : {"lower_prio", "higher_prio", "softirq softirq", "hardirq hard IRQ",
                           "idle idle", "0 ns lost"}) {
    EXPECT_EQ(result.out.find(leak), std::string::npos) << leak;
  }
}

}  // namespace
}  // namespace napiscope
