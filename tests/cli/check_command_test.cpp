// `napiscope check`: exit codes per path, thresholds from config and flags, and the CI outputs
// read back by independent parsers (Python's xml.etree and jsonschema, tests/cli/validate_output.py).
#include <algorithm>

#include <absl/strings/str_split.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/check_config.h"
#include "napiscope/rule_registry.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using nlohmann::json;
using ::testing::HasSubstr;

std::string SourcePath(const std::string& relative) { return TestData("../" + relative); }

// A trace with warnings only (softirq-latency, ksoftirqd-blocked, softirq-starvation; its SCHED
// wait behind NET_RX is no ordering stall: rcuc/0 and idle held that CPU, not NET_RX).
std::string Failing() { return TestData("scenarios/ksoftirqd_blocked.dat"); }
// A trace with info findings only.
std::string Passing() { return TestData("scenarios/irq_threads_pinned.dat"); }

std::string Check(const std::string& arguments) { return CliPath() + " check " + arguments; }

// The JUnit file as validate_output.py's xml.etree parse sees it, after checking it against the
// JUnit structure CI servers read (tests/cli/junit.xsd).
json ParseJUnit(const std::string& path) {
  auto valid = RunCommand("xmllint --noout --schema " + SourcePath("tests/cli/junit.xsd") + " " + path);
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  auto result =
      RunCommand("python3 " + SourcePath("tests/cli/validate_output.py") + " junit " + path);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  return result.exit_code == 0 ? json::parse(result.out) : json();
}

class CheckCommand : public ::testing::Test {
 protected:
  std::string dir_ = MakeTempDir();
};

TEST_F(CheckCommand, ExitCodesZeroTwoOne) {
  auto result = RunCommand(Check(Passing()));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "pass  " + Passing() + ": 0 errors, 0 warnings, 5 info\n");
  result = RunCommand(Check(Failing()));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.out, HasSubstr("FAIL  " + Failing() + ": 0 errors, 5 warnings, 4 info\n"));
  EXPECT_THAT(result.out, HasSubstr("      warning  ksoftirqd-blocked        ksoftirqd/0 was "
                                    "switched out in D for 3.00 ms"));
  // Only warnings: failing on errors passes it.
  EXPECT_EQ(RunCommand(Check("--fail-on error " + Failing())).exit_code, 0);
  // Each file separately, and an unreadable one makes it an error whatever the others found.
  result = RunCommand(Check(Passing() + " " + Failing()));
  EXPECT_EQ(result.exit_code, 2);
  result = RunCommand(Check(Passing() + " /nonexistent/trace.dat " + Failing()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("FAIL  " + Failing()));
  // Printed once (issue 21): in the summary on stdout, so not again on stderr.
  EXPECT_THAT(result.out, HasSubstr("ERROR /nonexistent/trace.dat: No such file or directory\n"));
  EXPECT_EQ(result.err, "");
  result = RunCommand(Check("-q -f json -o /dev/null " + Passing() + " /nonexistent/trace.dat"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "napiscope: /nonexistent/trace.dat: No such file or directory\n");
}

// A finding's sentence is one line in a CI log (grep finds it whole) and on a terminal wrapped
// at its width (--width N), the rule on a line of its own: a 500-column line broke anywhere.
TEST_F(CheckCommand, WidthWrapsEachFindingUnderItsRule) {
  auto result = RunCommand(Check("--width 80 " + Failing()));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.out,
              HasSubstr("\n      warning  ksoftirqd-blocked\n               ksoftirqd/0 "
                        "was switched out in D for 3.00 ms"));
  std::vector<std::string> lines = absl::StrSplit(result.out, '\n');
  ASSERT_GT(lines.size(), 10u);  // 5 warnings of a few lines each
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_LE(lines[i].size(), 80u) << lines[i];
  // Not a terminal and no --width: one line per finding (the first test's form).
  result = RunCommand(Check(Failing()));
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 6) << result.out;
}

// The meanings wrapped under their column at --width (they ran to 124 columns); piped without
// --width, one line per key, for grep.
TEST_F(CheckCommand, ThresholdListFitsTheWidth) {
  size_t keys = ThresholdKeys().size();
  auto piped = RunCommand(Check("--list-thresholds"));
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(static_cast<size_t>(std::count(piped.out.begin(), piped.out.end(), '\n')), keys + 2);
  auto narrow = RunCommand(Check("--list-thresholds --width 80"));
  EXPECT_EQ(narrow.exit_code, 0);
  std::vector<std::string> lines = absl::StrSplit(narrow.out, '\n');
  EXPECT_GT(lines.size(), keys + 3);
  for (const std::string& line : lines) EXPECT_LE(line.size(), 80u) << line;
  EXPECT_THAT(narrow.out, HasSubstr("\nsoftirq_latency_p99_warning_ns      1ms       softirq-"
                                    "latency: warning when a\n"
                                    "                                              (cpu, vec)'s"));
  for (const ThresholdKey& key : ThresholdKeys()) {
    EXPECT_THAT(narrow.out, HasSubstr("\n" + std::string(key.key) + " "));
  }
}

TEST_F(CheckCommand, ThresholdsFromConfigAndFlags) {
  // Raising the limits the warnings crossed turns the failing trace into a passing one.
  std::string config = dir_ + "/napiscope.toml";
  WriteFile(config,
            "[thresholds]\nksoftirqd_blocked_warning_ns = \"10ms\"\nordering_stall_ns = \"10ms\"\n"
            "softirq_starvation_warning_ns = \"10ms\"\n"
            "[thresholds.TIMER]\nsoftirq_latency_p99_warning_ns = \"10ms\"\n");
  auto result = RunCommand(Check("--config " + config + " " + Failing()));
  EXPECT_EQ(result.exit_code, 2);  // SCHED still waited 3.99 ms
  EXPECT_THAT(result.out, HasSubstr("0 errors, 1 warning, 4 info"));
  EXPECT_THAT(result.out, HasSubstr("SCHED on CPU0 waited up to 3.99 ms"));
  result = RunCommand(Check("--config " + config + " -t SCHED.softirq_latency_p99_warning_ns=4ms " +
                            Failing()));
  EXPECT_EQ(result.exit_code, 0) << result.out;
  // A flag wins over the config; lowering a limit makes a finding an error.
  result = RunCommand(Check("--config " + config + " -t softirq_latency_max_error_ns=2ms " +
                            Failing()));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.out, HasSubstr("2 errors, 0 warnings"));
  // fail_on in the config, and --fail-on over it.
  WriteFile(config, "fail_on = \"error\"\n");
  EXPECT_EQ(RunCommand(Check("--config " + config + " " + Failing())).exit_code, 0);
  EXPECT_EQ(RunCommand(Check("--config " + config + " --fail-on warning " + Failing())).exit_code,
            2);
  std::string json_config = dir_ + "/napiscope.json";
  WriteFile(json_config, R"({"thresholds": {"ksoftirqd_blocked_error_ns": "2ms"}})");
  result = RunCommand(Check("--config " + json_config + " " + Failing()));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.out, HasSubstr("1 error, 4 warnings"));
}

TEST_F(CheckCommand, BadConfigAndArgumentsExitOneNamingTheProblem) {
  std::string config = dir_ + "/napiscope.toml";
  WriteFile(config, "[thresholds]\nksoftirqd_blocked_warnign_ns = \"10ms\"\n");
  auto result = RunCommand(Check("--config " + config + " " + Passing()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "napiscope check: " + config +
                            ": unknown key 'thresholds.ksoftirqd_blocked_warnign_ns'; did you "
                            "mean 'thresholds.ksoftirqd_blocked_warning_ns'?\n");
  result = RunCommand(Check("--config " + dir_ + "/missing.toml " + Passing()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "napiscope check: " + dir_ + "/missing.toml: cannot open the config file\n");
  result = RunCommand(Check("-t ordering_stall=1ms " + Passing()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope check: unknown key 'ordering_stall'; did you mean 'ordering_stall_ns'?\n");
  result = RunCommand(Check("-t ordering_stall_ns " + Passing()));
  EXPECT_EQ(result.err, "napiscope check: --threshold wants KEY=VALUE, not 'ordering_stall_ns'\n");
  EXPECT_EQ(RunCommand(Check("--fail-on info " + Passing())).exit_code, 1);
  EXPECT_EQ(RunCommand(Check("--format xml " + Passing())).exit_code, 1);
  EXPECT_EQ(RunCommand(Check("")).exit_code, 1);
  result = RunCommand(Check("-f junit -f markdown " + Passing()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("one --output per --format"));
  result = RunCommand(Check("-f json -o - -f junit -o - " + Passing()));  // JSON and XML mixed
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "napiscope check: one --format at most goes to stdout (-o -): give the others files\n");
  result = RunCommand(Check("-o /nonexistent/dir/out.xml -f junit " + Passing()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "napiscope check: /nonexistent/dir/out.xml: cannot write: No such file or "
                        "directory\n");
}

TEST_F(CheckCommand, JUnitHasATestcasePerRulePerTrace) {
  std::string xml = dir_ + "/napiscope.xml", md = dir_ + "/napiscope.md";
  auto result = RunCommand(Check("-f junit -o " + xml + " -f markdown -o " + md + " " + Failing() +
                                 " " + Passing() + " /nonexistent/trace.dat"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("FAIL  " + Failing()));  // the summary still on stdout
  json junit = ParseJUnit(xml);
  ASSERT_EQ(junit["suites"].size(), 3u);
  size_t rules = FindingRules().size();
  EXPECT_EQ(junit["tests"], std::to_string(2 * (rules + 1) + 1));  // "load" and each rule
  EXPECT_EQ(junit["failures"], "3");
  EXPECT_EQ(junit["errors"], "1");
  const json& failing = junit["suites"][0];
  EXPECT_EQ(failing["name"], Failing());
  ASSERT_EQ(failing["cases"].size(), rules + 1);
  EXPECT_EQ(failing["cases"]["load"], "pass");  // the loader did not warn
  for (const FindingRuleInfo& rule : FindingRules()) {
    EXPECT_TRUE(failing["cases"].contains(std::string(rule.id))) << rule.id;
  }
  for (const char* rule : {"softirq-latency", "ksoftirqd-blocked", "softirq-starvation"}) {
    EXPECT_EQ(failing["cases"][rule]["tag"], "failure") << rule;
    EXPECT_EQ(failing["cases"][rule]["type"], "warning") << rule;
  }
  EXPECT_THAT(failing["cases"]["ksoftirqd-blocked"]["message"].get<std::string>(),
              HasSubstr("ksoftirqd/0 was switched out in D for 3.00 ms"));
  EXPECT_THAT(failing["cases"]["softirq-latency"]["text"].get<std::string>(),
              HasSubstr("\nwarning: SCHED on CPU0 waited up to 3.99 ms"));  // both findings
  // The trace has no irq_handler_entry: the IRQ-thread and network-path rules are skipped (and
  // say so in an info finding each), not passed.
  EXPECT_EQ(failing["cases"]["irq-thread-pingpong"]["tag"], "skipped");
  EXPECT_EQ(failing["cases"]["net-path-priority"]["tag"], "skipped");
  EXPECT_EQ(failing["cases"]["softirq-pending-at-idle"], "pass");  // info only
  const json& passing = junit["suites"][1];
  EXPECT_EQ(passing["failures"], "0");
  EXPECT_EQ(passing["cases"]["irq-thread-pingpong"], "pass");
  EXPECT_EQ(passing["cases"]["softirq-latency"]["tag"], "skipped");
  const json& unreadable = junit["suites"][2];
  EXPECT_EQ(unreadable["cases"]["load"]["tag"], "error");
  EXPECT_EQ(unreadable["cases"]["load"]["message"],
            "/nonexistent/trace.dat: No such file or directory");

  std::string markdown = ReadFile(md);
  EXPECT_THAT(markdown, HasSubstr("### napiscope check: 1 of 3 traces failed, 1 unreadable\n"));
  EXPECT_THAT(markdown, HasSubstr("| trace | result | errors | warnings | info |\n"));
  EXPECT_THAT(markdown, HasSubstr("scenarios/ksoftirqd\\_blocked.dat | ❌ fail | 0 | 5 | 4 |\n"));
  EXPECT_THAT(markdown, HasSubstr("- **warning** `ksoftirqd-blocked` ksoftirqd/0 was switched out"));
}

// A trace the loader warned about passed `check` as "0 errors, 0 warnings" in text, JUnit,
// Markdown and HTML (issue 64). Every format now carries the warning, and it fails the trace
// unless --allow-data-loss (or allow_data_loss in the config), which still shows it.
TEST_F(CheckCommand, TheLoadersWarningsAreInEveryFormatAndFailTheTrace) {
  // 2 of the 13 records (net_dev_xmit) get an event id the file has no format for.
  std::string trace = ReadFile(TestData("scenarios/missed_events_gap.dat"));
  size_t id = trace.find("ID: 2306\n");
  ASSERT_NE(id, std::string::npos);
  trace.replace(id, 9, "ID: 9306\n");
  std::string lossy = dir_ + "/lossy.dat";
  WriteFile(lossy, trace);
  const std::string warning = "2 records with unknown event ids skipped";
  std::string xml = dir_ + "/c.xml", md = dir_ + "/c.md", js = dir_ + "/c.json",
              html = dir_ + "/c.html";
  std::string outputs = "-f junit -o " + xml + " -f markdown -o " + md + " -f json -o " + js +
                        " -f html -o " + html + " ";
  auto result = RunCommand(Check(outputs + lossy));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.out, "FAIL  " + lossy + ": 0 errors, 0 warnings, 5 info, 1 loader warning\n" +
                            "      loader   " + warning + "\n");
  json junit = ParseJUnit(xml);
  EXPECT_EQ(junit["failures"], "1");
  const json& load = junit["suites"][0]["cases"]["load"];
  EXPECT_EQ(load["tag"], "failure");
  EXPECT_EQ(load["type"], "data-loss");
  EXPECT_EQ(load["message"], warning);
  std::string markdown = ReadFile(md);
  EXPECT_THAT(markdown, HasSubstr("### napiscope check: the trace failed\n"));
  EXPECT_THAT(markdown, HasSubstr("So do the loader's warnings"));
  EXPECT_THAT(markdown, HasSubstr("- **loader** " + warning + "\n"));
  json report = json::parse(ReadFile(js));
  EXPECT_EQ(report["result"], "fail");
  EXPECT_EQ(report["fail_on_data_loss"], true);
  EXPECT_EQ(report["traces"][0]["load_warnings"], json::array({warning}));
  EXPECT_THAT(ReadFile(html), HasSubstr("loader warning: " + warning + " (fails the trace)"));
  auto valid = RunCommand("python3 " + SourcePath("tests/cli/validate_output.py") + " schema " +
                          SourcePath("docs/report-schema.json") + " check " + js);
  EXPECT_EQ(valid.exit_code, 0) << valid.out;

  // Allowed: the trace passes on its findings, the warning still in each format.
  result = RunCommand(Check("--allow-data-loss " + outputs + lossy));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "pass  " + lossy +
                            ": 0 errors, 0 warnings, 5 info, 1 loader warning (allowed)\n" +
                            "      loader   " + warning + "\n");
  junit = ParseJUnit(xml);
  EXPECT_EQ(junit["failures"], "0");
  EXPECT_EQ(junit["suites"][0]["cases"]["load"]["system-err"], "loader warning: " + warning + "\n");
  EXPECT_THAT(ReadFile(md), HasSubstr("- **loader** " + warning + " (allowed)\n"));
  EXPECT_EQ(json::parse(ReadFile(js))["fail_on_data_loss"], false);
  EXPECT_THAT(ReadFile(html), HasSubstr("loader warning: " + warning + " (allowed)"));
  std::string config = dir_ + "/napiscope.toml";
  WriteFile(config, "allow_data_loss = true\n");
  EXPECT_EQ(RunCommand(Check("-q --config " + config + " " + lossy)).exit_code, 0);
  WriteFile(config, "allow_data_loss = \"yes\"\n");
  result = RunCommand(Check("--config " + config + " " + lossy));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("'allow_data_loss' wants true or false, not '\"yes\"'"));
}

TEST_F(CheckCommand, XmlSpecialsAreEscaped) {
  // A path with XML's specials must still give well-formed XML naming it.
  std::string odd = dir_ + "/a&b<\"c\">.dat";
  RunCommand("cp " + Passing() + " '" + odd + "'");
  std::string xml = dir_ + "/out.xml";
  EXPECT_EQ(RunCommand(Check("-f junit -o " + xml + " '" + odd + "'")).exit_code, 0);
  EXPECT_EQ(ParseJUnit(xml)["suites"][0]["name"], odd);
}

TEST_F(CheckCommand, EveryRuleThatFiresIsRegistered) {
  // Over every bundled trace: findings only use rule ids the JUnit output lists.
  auto result = RunCommand(Check("-f json " + TestData("scenarios/*.dat") + " " +
                                 TestData("real/*.dat")));
  ASSERT_EQ(result.exit_code, 2) << result.err;
  json check = json::parse(result.out);
  EXPECT_EQ(check["result"], "fail");
  ASSERT_GE(check["traces"].size(), 10u);
  int findings = 0;
  for (const json& trace : check["traces"]) {
    for (const json& finding : trace["report"]["findings"]) {
      ++findings;
      EXPECT_NE(FindFindingRule(finding["rule"].get<std::string>()), nullptr) << finding["rule"];
    }
  }
  EXPECT_GT(findings, 10);
}

}  // namespace
}  // namespace napiscope
