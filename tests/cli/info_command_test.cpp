#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;

TEST(InfoCommand, PrintsSummaryOfARealTrace) {
  auto result = RunCommand(CliPath() + " info " + TestData("real/short-v6.dat"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, ::testing::HasSubstr("trace.dat v6, compression none"));
  EXPECT_THAT(result.out, ::testing::HasSubstr("events:   34936"));
  EXPECT_THAT(result.out, ::testing::ContainsRegex("napi_poll +1873 +453 +1420"));
}

TEST(InfoCommand, JsonIsParsableAndVersioned) {
  auto result = RunCommand(CliPath() + " info --json " + TestData("real/veth-threaded-napi.dat"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  nlohmann::json info = nlohmann::json::parse(result.out);
  EXPECT_EQ(info["schema"], "napiscope.info/1");
  EXPECT_EQ(info["trace"]["file_version"], 7);
  EXPECT_EQ(info["event_counts"]["napi_poll"]["total"], 7169);
  EXPECT_EQ(info["missed_events_per_cpu"][0]["events"], 362744);
}

TEST(InfoCommand, MissingFileExitsOneWithOneLine) {
  auto result = RunCommand(CliPath() + " info /nonexistent/trace.dat");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "napiscope: /nonexistent/trace.dat: No such file or directory\n");
}

TEST(InfoCommand, EmptyFileExitsOne) {
  auto result = RunCommand(CliPath() + " info /dev/null");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, ::testing::StartsWith("napiscope: /dev/null: "));
}

TEST(InfoCommand, BadUsageExitsOne) {
  EXPECT_EQ(RunCommand(CliPath() + " info").exit_code, 1);
  EXPECT_EQ(RunCommand(CliPath() + " no-such-command").exit_code, 1);
}

}  // namespace
}  // namespace napiscope
