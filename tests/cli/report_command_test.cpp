#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/record.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using nlohmann::json;
using ::testing::HasSubstr;

// The findings of one rule (other analyses add their own).
json FindingsOf(const json& report, const std::string& rule) {
  json found = json::array();
  for (const json& finding : report["findings"]) {
    if (finding["rule"] == rule) found.push_back(finding);
  }
  return found;
}

const json* LatencyRow(const json& report, int cpu, const std::string& name) {
  for (const json& row : report["softirq_latency"]) {
    if (row["cpu"] == cpu && row["name"] == name) return &row;
  }
  return nullptr;
}

TEST(ReportCommand, TextHasHeaderFindingsAndTables) {
  auto result = RunCommand(CliPath() + " report " + TestData("real/veth-softirq-napi.dat"));
  EXPECT_EQ(result.exit_code, 2) << "cyclictest woke up to 2.29 ms late: " << result.err;
  EXPECT_THAT(result.out, HasSubstr("error    cyclictest (pid 10307, RT 98) on CPU0 ran up to "
                                    "2.29 ms after its wakeup"));
  EXPECT_THAT(result.out, HasSubstr("format:   trace.dat v7, compression zstd 1.5.4\n"));
  EXPECT_THAT(result.out, HasSubstr("span:     663.739770 .. 664.217468 (477.70 ms)\n"));
  // Findings first, then what was lost or not recorded, then the tables (issue 21).
  EXPECT_THAT(result.out, HasSubstr("\nfindings (1 error, 1 warning, 2 info):\n"));
  EXPECT_THAT(result.out, HasSubstr("\nlost and missing events:\n  lost      at least 193248 "
                                    "events in 2 gaps on CPUs 0-1.\n"));
  EXPECT_THAT(result.out, HasSubstr("  missing   execution contexts and CPU time: less complete "
                                    "without irq:irq_handler_entry, irq:irq_handler_exit.\n"));
  EXPECT_LT(result.out.find("\nfindings"), result.out.find("\nlost and missing events:"));
  EXPECT_EQ(result.out.find("waited up to"), std::string::npos);  // no softirq-latency finding
  EXPECT_THAT(result.out, HasSubstr("\n    1 NET_RX   5956 11.7 us 12.2 us 30.6 us 80.6 us "
                                    "664.171170       0 task_bh_enable 5947, ksoftirqd 6, "
                                    "irq_exit 3\n"));
  EXPECT_THAT(result.out, HasSubstr("\n  cpu0   NET_RX   247 us raised 663.899961, ran 663.900207 "
                                    "in task_bh_enable: iperf3 (pid 10306) 137 us, x86 vector\n"
                                    "                    local_timer (236) 109 us, softirq TIMER "
                                    "721 ns\n"));
  EXPECT_THAT(result.out, HasSubstr("CPU time, share of each CPU's traced span"));
  EXPECT_THAT(result.out, HasSubstr("\n  all 671.42 ms    0.0% 27.7%     3.1%   21.5%"));
}

TEST(ReportCommand, JsonIsTheVersionedSchema) {
  auto result =
      RunCommand(CliPath() + " report --format json " + TestData("real/veth-softirq-napi.dat"));
  ASSERT_EQ(result.exit_code, 2) << result.err;
  json report = json::parse(result.out);
  EXPECT_EQ(report["schema"], "napiscope.report/1");
  EXPECT_EQ(report["trace"]["events"], 438319);
  EXPECT_EQ(report["trace"]["first_ts_ns"], 663739770736);
  EXPECT_EQ(report["trace"]["missed_events"][0]["count"], 193248);
  EXPECT_TRUE(report["window"]["from_ns"].is_null());
  const json* net_rx = LatencyRow(report, 1, "NET_RX");
  ASSERT_NE(net_rx, nullptr);
  EXPECT_EQ((*net_rx)["count"], 5956);
  EXPECT_EQ((*net_rx)["max_ns"], 80599);
  EXPECT_EQ((*net_rx)["max_at_ns"], 664171170449);
  EXPECT_EQ((*net_rx)["p99_ns"], 30565);
  EXPECT_EQ((*net_rx)["ran_in"]["task_bh_enable"], 5947);
  EXPECT_EQ((*net_rx)["worst"][0]["blame"][0]["pid"], 10306);
  EXPECT_EQ((*net_rx)["worst"][0]["blame"][0]["time_ns"], 80599);
  ASSERT_EQ(report["cpu_time"].size(), 2u);
  EXPECT_EQ(report["cpu_time"][1]["softirq_ns"]["NET_RX"], 62089770);
  EXPECT_TRUE(FindingsOf(report, "softirq-latency").empty());
}

TEST(ReportCommand, CpuAndWindowRestrictTheRows) {
  auto result = RunCommand(CliPath() + " report --format json --cpu 1 --from 664.1 --to 664.15 " +
                           TestData("real/veth-softirq-napi.dat"));
  ASSERT_EQ(result.exit_code, 2) << result.err;
  json report = json::parse(result.out);
  EXPECT_EQ(report["window"]["from_ns"], 664100000000);
  EXPECT_EQ(report["window"]["to_ns"], 664150000000);
  EXPECT_EQ(report["cpus"], json::array({1}));
  for (const char* section :
       {"softirq_latency", "softirq_runtime", "hardirq_runtime", "cpu_time"}) {
    ASSERT_FALSE(report[section].empty()) << section;
    for (const json& row : report[section]) EXPECT_EQ(row["cpu"], 1) << section;
  }
  EXPECT_EQ((*LatencyRow(report, 1, "NET_RX"))["count"], 1505);
  EXPECT_EQ(report["cpu_time"][0]["span_ns"], 50000000);
}

TEST(ReportCommand, FindingsAboveThresholdExitTwo) {
  auto result = RunCommand(CliPath() + " report " + TestData("scenarios/ksoftirqd_blocked.dat"));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.out, HasSubstr("  warning  SCHED on CPU0 waited up to 3.99 ms (p99 3.99 ms, "
                                    "1 wait) — held by rcuc/0 (pid 16, RT 10) 2.99 ms"));
  result = RunCommand(CliPath() + " report --format json " +
                      TestData("scenarios/ksoftirqd_blocked.dat"));
  EXPECT_EQ(result.exit_code, 2);
  json latency = FindingsOf(json::parse(result.out), "softirq-latency");
  ASSERT_EQ(latency.size(), 2u);
  const json& sched = latency[1];
  EXPECT_EQ(sched["evidence"]["name"], "SCHED");
  EXPECT_EQ(sched["severity"], "warning");
  EXPECT_EQ(sched["cpu"], 0);
  EXPECT_EQ(sched["start_ns"], 2000008000);
  EXPECT_EQ(sched["end_ns"], 2003998000);
  EXPECT_EQ(sched["evidence"]["p99_threshold_ns"], 1000000);
}

TEST(ReportCommand, BadArgumentsExitOneWithOneLine) {
  std::string trace = " " + TestData("real/idle.dat");
  auto result = RunCommand(CliPath() + " report --cpu 1-x" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "napiscope report: --cpu wants a CPU list like 0,2-3, not '1-x'\n");
  for (const char* bad : {"0,", ",1", "3-1", "0-9999", "-1"}) {
    EXPECT_EQ(RunCommand(CliPath() + " report --cpu=" + bad + trace).exit_code, 1) << bad;
  }
  result = RunCommand(CliPath() + " report --cpu 0,2" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "napiscope: " + trace.substr(1) + ": --cpu 2: the trace has CPUs 0-1\n");
  result = RunCommand(CliPath() + " report --from 1.2.3" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope report: --from: '1.2.3' is not a time: give trace seconds as trace-cmd "
            "prints them (705.4123) or +DURATION from the trace start (+100ms, +1.5s, +250us)\n");
  result = RunCommand(CliPath() + " report --to +1.5" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("--to: '+1.5' is not a time: give trace seconds"));
  EXPECT_EQ(RunCommand(CliPath() + " report --format xml" + trace).exit_code, 1);
  EXPECT_EQ(RunCommand(CliPath() + " report").exit_code, 1);
  result = RunCommand(CliPath() + " report /nonexistent/trace.dat");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "napiscope: /nonexistent/trace.dat: No such file or directory\n");
}

// `-o` naming the trace itself (or a link to it) wrote the report over the trace once the
// analysis was done: every command that reads traces refuses it before the analysis, and the
// trace stays as it was.
TEST(ReportCommand, AnOutputThatIsAnInputIsRefusedAndTheTraceKept) {
  std::string dir = ::napiscope::testing::MakeTempDir();
  std::string trace = dir + "/t.dat";
  std::string original = ::napiscope::testing::ReadFile(TestData("real/short-v6.dat"));
  ::napiscope::testing::WriteFile(trace, original);
  std::string link = dir + "/link.dat";
  ASSERT_EQ(symlink(trace.c_str(), link.c_str()), 0);
  std::string other = TestData("real/idle.dat");
  const std::pair<std::string, std::string> cases[] = {
      {"report -q -o " + trace + " " + trace,
       "napiscope report: " + trace +
           ": -o names a file this command reads; choose another "
           "output\n"},
      {"export --format perfetto -o " + link + " " + trace,
       "napiscope export: " + link + ": -o names " + trace +
           ", which this command reads; choose another output\n"},
      {"diff -o " + trace + " " + other + " " + trace,
       "napiscope diff: " + trace +
           ": -o names a file this command reads; choose another "
           "output\n"},
      {"check -f junit -o " + link + " " + other + " " + trace,
       "napiscope check: " + link + ": -o names " + trace +
           ", which this command reads; choose another output\n"},
  };
  for (const auto& [arguments, error] : cases) {
    auto result = RunCommand(CliPath() + " " + arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_EQ(result.err, error) << arguments;
    EXPECT_TRUE(::napiscope::testing::ReadFile(trace) == original) << arguments;
  }
  // A name with a newline in it still makes one line.
  std::string odd = dir + "/a\nb.dat";
  ::napiscope::testing::WriteFile(odd, original);
  auto result = RunCommand(CliPath() + " report -q -o '" + odd + "' '" + odd + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "napiscope report: " + dir +
                            "/a\\nb.dat: -o names a file this command reads; choose another "
                            "output\n");
  // An output that cannot be written fails before the analysis, as the trace's name does.
  for (const std::string& output : {dir, dir + "/no/such/r.txt"}) {
    auto unwritable = RunCommand(CliPath() + " report -q -o " + output + " /nonexistent.dat");
    EXPECT_EQ(unwritable.exit_code, 1);
    EXPECT_THAT(unwritable.err, ::testing::StartsWith("napiscope report: " + output + ": "))
        << unwritable.err;
  }
  // Another file is written as before.
  EXPECT_EQ(RunCommand(CliPath() + " report -q -o " + dir + "/r.txt " + trace).exit_code, 0);
  EXPECT_THAT(::napiscope::testing::ReadFile(dir + "/r.txt"), HasSubstr("trace:"));
}

// A window the trace does not reach passed silently as "no findings" (issue 21): it is an error
// naming the trace's span, for report and check alike, absolute or from the trace start.
TEST(ReportCommand, WindowOutsideOrEmptyIsAnErrorNamingTheSpan) {
  std::string path = TestData("real/veth-threaded-napi.dat");
  for (const char* command : {" report", " check"}) {
    auto result = RunCommand(CliPath() + command + " --from 1 --to 2 " + path);
    EXPECT_EQ(result.exit_code, 1) << command;
    // Printed once: on stderr for report, in check's summary (stdout) for check.
    std::string printed = result.out + result.err;
    EXPECT_THAT(printed, ::testing::MatchesRegex(
                             "(napiscope: |ERROR ).*veth-threaded-napi.dat: the window 1.000000 .. "
                             "2.000000 is outside the trace, which spans 705.3[0-9]{5} .. "
                             "705.6[0-9]{5} \\([0-9.]+ ms\\)\n"))
        << command;
  }
  auto result = RunCommand(CliPath() + " report --from 705.6 --to 705.5 " + path);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("the window 705.600000 .. 705.500000 is empty (it ends "
                                    "before it begins); the trace spans 705.3"));
  result = RunCommand(CliPath() + " report --from +10s " + path);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr(" .. end is outside the trace, which spans 705.3"));
}

// "+100ms" counts from the trace's first event: the same window as its absolute spelling.
TEST(ReportCommand, OffsetWindowEqualsAbsoluteWindow) {
  std::string path = " " + TestData("real/veth-threaded-napi.dat");
  auto whole = json::parse(RunCommand(CliPath() + " report --format json" + path).out);
  int64_t first_ns = whole["trace"]["first_ts_ns"];
  int64_t from_ns = first_ns + 100000000, to_ns = first_ns + 200000000;
  auto offset = RunCommand(CliPath() + " report --format json --from +100ms --to +0.2s" + path);
  ASSERT_EQ(offset.err, "");
  json windowed = json::parse(offset.out);
  EXPECT_EQ(windowed["window"]["from_ns"], from_ns);
  EXPECT_EQ(windowed["window"]["to_ns"], to_ns);
  auto absolute = RunCommand(CliPath() + " report --format json --from " +
                             std::to_string(from_ns) + "ns --to " + std::to_string(to_ns) + "ns" +
                             path);
  EXPECT_EQ(absolute.out, offset.out);
  EXPECT_NE(windowed["softirq_latency"], whole["softirq_latency"]);
}

// Issue 21: CLI11's own errors lacked the prefix; "napiscope repor x" said "A subcommand is
// required"; info took --json where the others take --format json.
TEST(CommandLine, ParseErrorsAreOneLineWithPrefixAndSuggestion) {
  std::string trace = " " + TestData("real/idle.dat");
  auto result = RunCommand(CliPath() + " repor x");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope: unknown command 'repor'; did you mean 'report'? (napiscope --help lists "
            "the commands)\n");
  result = RunCommand(CliPath() + " report --sumary" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope report: unknown option --sumary; did you mean --summary? (napiscope report "
            "--help lists the options)\n");
  result = RunCommand(CliPath() + " report --format jsn" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope report: --format: wants text, json or html, not 'jsn'; did you mean "
            "'json'?\n");
  result = RunCommand(CliPath() + " check --fail-on fatal" + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "napiscope check: --fail-on: wants warning or error, not 'fatal'\n");
  result = RunCommand(CliPath() + " report");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, ::testing::StartsWith("napiscope report: "));
  EXPECT_THAT(RunCommand(CliPath() + " --help").out,
              HasSubstr("Exit codes: 0 no finding at or above the threshold and no regression;"));
}

// Longest line of `text`, in bytes (help is ASCII).
size_t LongestLine(const std::string& text) {
  size_t longest = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  return longest;
}

// Every command's --help fits the terminal: CLI11 wrote each description on one line of up to
// 380 columns. Wide terminals get lines of at most 100 columns.
TEST(CommandLine, HelpFitsTheTerminal) {
  for (std::string command :
       {"", " info", " report", " check", " diff", " record", " live", " export"}) {
    SCOPED_TRACE(command);
    std::string narrow = RunCommand("COLUMNS=80 " + CliPath() + command + " --help").out;
    ASSERT_THAT(narrow, HasSubstr("Usage: napiscope"));
    EXPECT_LE(LongestLine(narrow), 80u);
    std::string wide = RunCommand("COLUMNS=300 " + CliPath() + command + " --help").out;
    EXPECT_LE(LongestLine(wide), 100u);
    EXPECT_GT(LongestLine(wide), 80u);
  }
  // Continuation lines of an option's description start under its first line.
  std::string report = RunCommand("COLUMNS=80 " + CliPath() + " report --help").out;
  EXPECT_THAT(report, HasSubstr("  --summary                   findings, lost and missing events, "
                                "and one line\n"
                                "                              per analysis; no tables\n"));
  // Too narrow for two columns: each description under its name.
  std::string narrow = RunCommand("COLUMNS=50 " + CliPath() + " report --help").out;
  EXPECT_THAT(narrow, HasSubstr("\n  --summary\n      findings, lost and missing events, and one\n"
                                "      line per analysis; no tables\n"));
}

// record and live --help name every event of each preset: an installed napiscope has no
// docs/record.md beside it.
TEST(CommandLine, CaptureHelpListsEachPresetsEvents) {
  for (std::string command : {" record", " live"}) {
    SCOPED_TRACE(command);
    std::string help = RunCommand("COLUMNS=80 " + CliPath() + command + " --help").out;
    for (const std::string& preset : EventPresetNames()) {
      SCOPED_TRACE(preset);
      size_t at = help.find("\n  " + preset + ": ");
      ASSERT_NE(at, std::string::npos) << help;
      size_t end = help.find("\n  ", at + 1);  // the next preset (continuations have 4 spaces)
      while (end != std::string::npos && help.compare(end, 5, "\n    ") == 0) {
        end = help.find("\n  ", end + 1);
      }
      std::string listed =
          help.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at);
      absl::StatusOr<std::vector<std::string>> events = ResolveEventPreset(preset);
      ASSERT_TRUE(events.ok());
      for (const std::string& event : *events) {
        EXPECT_THAT(listed, HasSubstr(" " + event + (event == events->back() ? "\n" : ",")));
      }
    }
  }
}

// `napiscope` alone lists the commands (on stderr, exit 1: it did nothing); `napiscope help
// [COMMAND]` is --help.
TEST(CommandLine, NoCommandListsThemAndHelpIsHelp) {
  std::string help = RunCommand(CliPath() + " --help").out;
  ASSERT_THAT(help, HasSubstr("Usage: napiscope [OPTIONS] SUBCOMMAND"));
  auto alone = RunCommand(CliPath());
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_EQ(alone.out, "");
  EXPECT_EQ(alone.err, help);
  auto help_command = RunCommand(CliPath() + " help");
  EXPECT_EQ(help_command.exit_code, 0);
  EXPECT_EQ(help_command.out, help);
  auto report_help = RunCommand(CliPath() + " help report");
  EXPECT_EQ(report_help.exit_code, 0);
  EXPECT_EQ(report_help.out, RunCommand(CliPath() + " report --help").out);
  EXPECT_THAT(report_help.out, HasSubstr("Usage: napiscope report [OPTIONS] FILE"));
  auto typo = RunCommand(CliPath() + " help repor");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_EQ(typo.err,
            "napiscope: unknown command 'repor'; did you mean 'report'? (napiscope --help lists "
            "the commands)\n");
}

// A number option's wrong value says in words what the option takes, where CLI11 printed the
// range of a double in full ("not in range 0.000000 to 1797693134862315708...") or "Could not
// convert".
TEST(CommandLine, AWrongNumberSaysWhatTheOptionTakes) {
  std::string trace = " " + TestData("real/idle.dat");
  struct Case {
    const char* args;
    const char* message;
  };
  for (const Case& c : {
           Case{"report --width -3",
                "napiscope report: --width: wants a whole number, 0 or "
                "more, not '-3'\n"},
           Case{"info --width 1.5",
                "napiscope info: --width: wants a whole number, 0 or more, "
                "not '1.5'\n"},
           Case{"report --width 9999999999",
                "napiscope report: --width: wants at most "
                "2147483647, not '9999999999'\n"},
           Case{"report --top 0",
                "napiscope report: --top: wants a whole number, 1 or more, "
                "not '0'\n"},
           Case{"report --top 1e3",
                "napiscope report: --top: wants a whole number, 1 or more, "
                "not '1e3'\n"},
           Case{"check --threads x",
                "napiscope check: --threads: wants a whole number from 0 "
                "to 256, not 'x'\n"},
           Case{"record -o /nonexistent/x.dat --keep-mb 0",
                "napiscope record: --keep-mb: wants "
                "a whole number from 1 to 1048576, "
                "not '0'\n"},
       }) {
    auto result = RunCommand(CliPath() + " " + c.args + trace);
    EXPECT_EQ(result.exit_code, 1) << c.args;
    EXPECT_EQ(result.err, c.message);
  }
  auto result = RunCommand(CliPath() + " diff --fail-on-regression nan" + trace + trace);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope diff: --fail-on-regression: wants a number, 0 or more (like 10 or 2.5), "
            "not 'nan'\n");
  EXPECT_EQ(RunCommand(CliPath() + " diff -q --fail-on-regression 12.5" + trace + trace).exit_code,
            0);
}

TEST(CommandLine, InfoTakesFormatJsonLikeTheOthers) {
  std::string trace = " " + TestData("real/idle.dat");
  auto format = RunCommand(CliPath() + " info --format json" + trace);
  ASSERT_EQ(format.exit_code, 0) << format.err;
  EXPECT_EQ(json::parse(format.out)["schema"], "napiscope.info/2");
  EXPECT_EQ(RunCommand(CliPath() + " info --json" + trace).out, format.out);
}

}  // namespace
}  // namespace napiscope
