#include <string>
#include <vector>

#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "tracegen/synthetic.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;

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
  EXPECT_EQ(info["schema"], "napiscope.info/2");
  EXPECT_EQ(info["trace"]["file_version"], 7);
  EXPECT_EQ(info["event_counts"]["napi_poll"]["total"], 7169);
  EXPECT_EQ(info["missed_events_per_cpu"][0]["events"], 362744);
}

// More CPUs than columns fit: each name's busiest CPUs, in lines of the width asked for.
TEST(InfoCommand, ServerTraceFitsEightyColumns) {
  std::string trace = TestData("real/server16-softirq-napi.dat");
  auto narrow = RunCommand(CliPath() + " info --width 80 " + trace);
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  std::vector<std::string> lines = absl::StrSplit(narrow.out, '\n');
  for (const std::string& line : lines) {
    EXPECT_LE(line.size(), 80u) << line;
  }
  EXPECT_THAT(narrow.out, ::testing::HasSubstr("events by name, on 16 CPUs:"));
  EXPECT_THAT(narrow.out,
              ::testing::ContainsRegex("napi_poll +64649 cpu1:13565, cpu2:13467, cpu15:12307,\n +"
                                       "cpu9:11901, cpu0:10152, cpu3:1759, cpu5:1498\n"));
  EXPECT_THAT(narrow.out, ::testing::HasSubstr("  none on cpu3-8,10-14\n"));
  // Wide enough, a column per CPU that recorded events.
  auto wide = RunCommand(CliPath() + " info --width 0 " + trace);
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_THAT(wide.out, ::testing::ContainsRegex("event +total +cpu0 +cpu1 .* cpu15\n"));
}

// When every CPU recorded a name alike, none is busiest: one range, not six CPUs "and 10 more".
TEST(InfoCommand, CpusThatRecordedAlikeAreOneRange) {
  std::string trace = MakeTempDir() + "/even.dat";
  tracegen::SyntheticOptions options;
  options.events = 16 * tracegen::kSyntheticCycleEvents * 10;  // 10 cycles on each CPU
  options.cpus = 16;
  ASSERT_TRUE(tracegen::WriteSyntheticTrace(trace, options).ok());
  auto info = RunCommand(CliPath() + " info --width 80 " + trace);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, ::testing::ContainsRegex("\n  napi_poll +160 cpu0-15 each 10\n"));
}

// Piped, not on a terminal: the exported COLUMNS is the width, as --width would be; a COLUMNS
// that is not a positive number leaves the default.
TEST(InfoCommand, PipedOutputTakesTheWidthFromColumns) {
  std::string trace = TestData("real/server16-softirq-napi.dat");
  auto asked = RunCommand(CliPath() + " info --width 80 " + trace);
  auto exported = RunCommand("COLUMNS=80 " + CliPath() + " info " + trace);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(exported.out, asked.out);
  auto fallback = RunCommand(CliPath() + " info --width 120 " + trace);
  auto unset = RunCommand(CliPath() + " info " + trace);
  EXPECT_NE(fallback.out, asked.out);
  EXPECT_EQ(unset.out, fallback.out);
  for (const char* bad : {"0", "-5", "80x", "wide"}) {
    auto ignored = RunCommand(std::string("COLUMNS=") + bad + " " + CliPath() + " info " + trace);
    EXPECT_EQ(ignored.out, fallback.out) << "COLUMNS=" << bad;
  }
}

// CPUs next to each other that lost alike share a line; the others keep theirs.
TEST(InfoCommand, NeighbourCpusThatLostAlikeShareALine) {
  std::string text = "# tracer: nop\n";
  for (int cpu = 0; cpu < 5; ++cpu) {
    text += absl::StrFormat("  <idle>-0     [%03d] d.h.   100.000010: event_a: x=1\n", cpu);
    text += absl::StrFormat("CPU:%d [LOST %d EVENTS]\n", cpu, cpu == 3 ? 7 : 1000);
    text += absl::StrFormat("  <idle>-0     [%03d] d.h.   100.000020: event_a: x=1\n", cpu);
  }
  std::string path = MakeTempDir() + "/lost-alike.txt";
  WriteFile(path, text);
  auto result = RunCommand(CliPath() + " info " + path);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, ::testing::ContainsRegex("\n  cpu0-2 each 1 gap, 1000 events, [^\n]*\n"
                                                   "  cpu3 +1 gap, 7 events, [^\n]*\n"
                                                   "  cpu4 +1 gap, 1000 events, "));
}

// A text line that says CPU 65535, then many event names: counts of the CPUs each name occurs
// on, not a column or counter for every CPU below 65535.
TEST(InfoCommand, AHighCpuNumberDoesNotWidenEveryName) {
  std::string text = "# tracer: nop\n";
  text += "  <idle>-0     [65535] d.h.   100.000000: first_event: x=1\n";
  for (int i = 0; i < 500; ++i) {
    text += absl::StrFormat("  <idle>-0     [000] d.h.   100.%06d: event_%d: x=1\n", i + 1, i);
  }
  std::string path = MakeTempDir() + "/high-cpu.txt";
  WriteFile(path, text);
  auto result = RunCommand(CliPath() + " info --width 80 " + path);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, ::testing::HasSubstr("cpus:     65536\n"));
  EXPECT_THAT(result.out, ::testing::ContainsRegex("events by name \\(none on cpu1-65534\\):\n"
                                                   "  event +total +cpu0 +cpu65535\n"));
  EXPECT_THAT(result.out, ::testing::ContainsRegex("\n  event_499 +1 +1 +0\n"));
  EXPECT_LT(result.out.size(), size_t{64} << 10);
  auto json = RunCommand(CliPath() + " info --json " + path);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json info = nlohmann::json::parse(json.out);
  EXPECT_EQ(info["event_counts"]["first_event"]["per_cpu"],
            nlohmann::json::parse(R"([{"cpu": 65535, "events": 1}])"));
  EXPECT_EQ(info["event_counts"]["event_7"]["per_cpu"],
            nlohmann::json::parse(R"([{"cpu": 0, "events": 1}])"));
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
