// What `cmake --install` puts in place besides the binary: the man page and bash completion,
// and that both describe what the binary accepts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "napiscope/check_config.h"
#include "napiscope/rule_registry.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::testing::HasSubstr;

std::string SourcePath(const std::string& relative) { return TestData("../" + relative); }

TEST(Install, PutsTheManPageAndCompletionInPlace) {
  std::string build = std::filesystem::path(CliPath()).parent_path().parent_path();
  std::string prefix = MakeTempDir();
  auto result = RunCommand("cmake --install " + build + " --prefix " + prefix);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* file : {"bin/napiscope", "share/man/man1/napiscope.1",
                           "share/bash-completion/completions/napiscope"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(prefix + "/" + file)) << file;
  }
  RunCommand("rm -rf " + prefix);
}

TEST(ManPage, RendersWithoutWarningsAndNamesEveryThresholdAndRule) {
  std::string page = SourcePath("cli/data/napiscope.1");
  auto result = RunCommand("groff -man -ww -z " + page);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, "");
  result = RunCommand("groff -man -Tutf8 -P-cbou " + page);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const ThresholdKey& key : ThresholdKeys()) {
    EXPECT_THAT(result.out, HasSubstr(std::string(key.key))) << key.key;
  }
  for (const FindingRuleInfo& rule : FindingRules()) {
    EXPECT_THAT(result.out, HasSubstr(std::string(rule.id))) << rule.id;
  }
  for (const char* command : {"napiscope info", "napiscope report", "napiscope check",
                              "napiscope diff", "--fail-on-regression", "--list-thresholds"}) {
    EXPECT_THAT(result.out, HasSubstr(command)) << command;
  }
}

// The words bash completion offers for the command line `words` (the last one being completed).
std::string Complete(const std::string& words) {
  auto result = RunCommand("bash -c 'source " + SourcePath("cli/data/napiscope.bash-completion") +
                           "; COMP_WORDS=(" + CliPath() + " " + words +
                           "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _napiscope; "
                           "printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(BashCompletion, OffersCommandsFormatsAndThresholdKeys) {
  EXPECT_EQ(Complete("d"), "diff\n");
  EXPECT_EQ(Complete("check -f \"\""), "text\njson\njunit\nmarkdown\nhtml\n");
  EXPECT_EQ(Complete("report --format \"\""), "text\njson\nhtml\n");
  EXPECT_EQ(Complete("h"), "help\n");
  EXPECT_EQ(Complete("help r"), "report\nrecord\n");
  EXPECT_EQ(Complete("diff --format \"\""), "text\njson\nmarkdown\n");
  EXPECT_EQ(Complete("check --fail-on e"), "error\n");
  EXPECT_EQ(Complete("check -t ksoftirqd"),
            "ksoftirqd_blocked_warning_ns=\nksoftirqd_blocked_error_ns=\n");
  EXPECT_THAT(Complete("check --l"), HasSubstr("--list-thresholds\n"));
}

// The completion's option lists are written by hand: each subcommand's must be the long
// options its --help defines (report lacked --output, which its HTML needs, and every trace
// command --buffer).
TEST(BashCompletion, OffersEveryLongOptionOfEachCommandsHelp) {
  const std::regex option_line(R"(^  (?:-\w,)?(--[a-z0-9-]+))");
  for (std::string command : {"info", "report", "check", "diff", "record", "export", "live"}) {
    std::set<std::string> defined;
    std::istringstream help(RunCommand(CliPath() + " " + command + " --help").out);
    std::smatch match;
    for (std::string line; std::getline(help, line);) {
      if (std::regex_search(line, match, option_line)) defined.insert(match[1]);
    }
    ASSERT_GT(defined.size(), 3u) << command;
    std::set<std::string> offered;
    std::istringstream completed(Complete(command + " --"));
    for (std::string word; std::getline(completed, word);) offered.insert(word);
    EXPECT_EQ(offered, defined) << command;
  }
}

}  // namespace
}  // namespace napiscope
