#include <gtest/gtest.h>

#include "napiscope/check_render.h"

namespace napiscope {
namespace {

std::string Title(const std::vector<TraceCheck>& checks) {
  std::string markdown = ChecksToMarkdown(checks, Severity::kWarning);
  return markdown.substr(0, markdown.find('\n'));
}

Finding WarningFinding() {
  Finding finding;
  finding.rule = "softirq-latency";
  finding.severity = Severity::kWarning;
  finding.summary = "a wait";
  return finding;
}

// The title counts traces in words: "all 1 passed" read as a typo.
TEST(ChecksToMarkdown, TitleCountsTracesInWords) {
  TraceCheck passing{"a.dat", absl::OkStatus(), Report{}};
  TraceCheck failing{"b.dat", absl::OkStatus(), Report{}};
  failing.report.findings.push_back(WarningFinding());
  TraceCheck unreadable{"c.dat", absl::NotFoundError("No such file"), Report{}};
  EXPECT_EQ(Title({passing}), "### napiscope check: the trace passed");
  EXPECT_EQ(Title({passing, passing}), "### napiscope check: all 2 traces passed");
  EXPECT_EQ(Title({failing}), "### napiscope check: the trace failed");
  EXPECT_EQ(Title({passing, failing}), "### napiscope check: 1 of 2 traces failed");
  EXPECT_EQ(Title({passing, unreadable}), "### napiscope check: 1 unreadable");
  EXPECT_EQ(Title({unreadable}), "### napiscope check: 1 unreadable");
}

}  // namespace
}  // namespace napiscope
