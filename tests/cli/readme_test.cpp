// The README is what a user reads first (issue 66): what napiscope is and three lines of use
// before installing, the exit codes a CI job relies on near the top, an Install section, and
// the developer material (architecture, layout, encoder internals) in docs/. CI and users run
// its first code block: exactly scripts/demo.sh and scripts/test.sh.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::ReadFile;
using ::napiscope::testing::TestData;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Project(const std::string& relative) { return TestData("../" + relative); }

TEST(Readme, OpensWithWhatItIsHowToUseItAndThenHowToInstall) {
  std::string readme = ReadFile(Project("README.md"));
  size_t install = readme.find("\n## Install\n");
  size_t using_it = readme.find("\n## Using it\n");
  ASSERT_NE(install, std::string::npos);
  ASSERT_NE(using_it, std::string::npos);
  EXPECT_LT(install, using_it);
  std::string top = readme.substr(0, install);
  EXPECT_THAT(top, HasSubstr("`napiscope report trace.dat`"));
  EXPECT_THAT(top, HasSubstr("`napiscope-gui trace.dat`"));
  EXPECT_THAT(top, HasSubstr("napiscope check"));
  EXPECT_THAT(top, HasSubstr("Exit code 2 when there are findings"));
  EXPECT_THAT(top, HasSubstr("it gates only with `--fail-on-regression`"));
  // The first code block: the two commands, in the Install section.
  size_t block = readme.find("```");
  EXPECT_GT(block, install);
  size_t end = readme.find("```", block + 3);
  std::string commands;
  for (size_t at = readme.find('\n', block) + 1; at < end;) {
    size_t eol = readme.find('\n', at);
    std::string line = readme.substr(at, eol - at);
    if (!line.empty() && line[0] != '#') commands += line + "\n";
    at = eol + 1;
  }
  EXPECT_EQ(commands, "scripts/demo.sh\nscripts/test.sh\n");
}

TEST(Readme, SaysWhichPythonAndLeavesDeveloperMaterialToDocs) {
  std::string readme = ReadFile(Project("README.md"));
  size_t python = readme.find("### In Python");
  ASSERT_NE(python, std::string::npos);
  EXPECT_THAT(readme.substr(python, readme.find("\n### ", python + 1) - python),
              HasSubstr("Debian's `/usr/bin/python3`"));
  for (const char* developer : {"## How it works", "## Layout", "interned_data", "ContextTracker"}) {
    EXPECT_THAT(readme, Not(HasSubstr(developer))) << developer;
  }
  EXPECT_THAT(ReadFile(Project("docs/development.md")), HasSubstr("## Layout"));
  EXPECT_THAT(ReadFile(Project("docs/perfetto.md")), HasSubstr("interned_data"));
}

}  // namespace
}  // namespace napiscope
