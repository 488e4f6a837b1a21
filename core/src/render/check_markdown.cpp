// Markdown for a pull-request comment (GitHub and GitLab flavours): short on purpose.
#include <fmt/format.h>

#include "napiscope/check_render.h"

namespace napiscope {
namespace {

constexpr int kFindingsPerTrace = 10;  // a comment is read, not searched

// Text safe inside a table cell or list item: Markdown's specials backslash-escaped.
std::string MarkdownEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\`*_[]<>|#").find(c) != std::string_view::npos) out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string ChecksToMarkdown(const std::vector<TraceCheck>& checks, Severity fail_on) {
  std::string table, details;
  int failed = 0, unreadable = 0;
  bool loader_warned = false;
  for (const TraceCheck& check : checks) {
    std::string path = MarkdownEscape(check.path);
    if (!check.status.ok()) {
      ++unreadable;
      table += fmt::format("| {} | ⚠️ error | | | |\n", path);
      details += fmt::format("\n**{}**: {}\n", path, MarkdownEscape(std::string(check.status.message())));
      continue;
    }
    CheckOutcome outcome = JudgeCheck(check, fail_on);
    failed += outcome.failed;
    table += fmt::format("| {} | {} | {} | {} | {} |\n", path, outcome.failed ? "❌ fail" : "✅ pass",
                         outcome.errors, outcome.warnings, outcome.infos);
    if (!outcome.failed && outcome.load_warnings == 0) continue;
    details += fmt::format("\n**{}**\n\n", path);
    for (const std::string& warning : LoaderDataWarnings(check.report.trace.meta)) {
      details += fmt::format("- **loader** {}{}\n", MarkdownEscape(warning),
                             check.data_loss_fails ? "" : " (allowed)");
    }
    loader_warned = loader_warned || outcome.load_warnings > 0;
    int shown = 0, hidden = 0;
    for (const Finding& finding : check.report.findings) {
      if (finding.severity < fail_on) continue;
      if (shown == kFindingsPerTrace) {
        ++hidden;
        continue;
      }
      ++shown;
      details += fmt::format("- **{}** `{}` {}\n", SeverityName(finding.severity), finding.rule,
                             MarkdownEscape(finding.summary));
    }
    if (hidden > 0) details += fmt::format("- … and {} more\n", hidden);
  }
  std::string verdict;
  if (checks.size() == 1) {
    verdict = failed > 0 ? "the trace failed" : unreadable > 0 ? "" : "the trace passed";
  } else {
    verdict = failed > 0       ? fmt::format("{} of {} traces failed", failed, checks.size())
              : unreadable > 0 ? ""
                               : fmt::format("all {} traces passed", checks.size());
  }
  if (unreadable > 0) {
    verdict += fmt::format("{}{} unreadable", verdict.empty() ? "" : ", ", unreadable);
  }
  std::string loss;
  if (loader_warned) {
    loss = checks.front().data_loss_fails
               ? " So do the loader's warnings (records skipped, data lost or suspect)."
               : " The loader's warnings (records skipped, data lost or suspect) are allowed.";
  }
  return fmt::format(
      "### napiscope check: {}\n\nFindings at or above **{}** fail a trace.{}\n\n"
      "| trace | result | errors | warnings | info |\n|---|---|--:|--:|--:|\n{}{}",
      verdict, SeverityName(fail_on), loss, table, details);
}

}  // namespace napiscope
