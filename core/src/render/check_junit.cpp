// JUnit XML as Jenkins, GitLab and most CI servers read it (testsuites > testsuite > testcase,
// with failure, error, skipped and system-out).
#include <fmt/format.h>

#include "napiscope/check_render.h"
#include "napiscope/rule_registry.h"

namespace napiscope {
namespace {

// Text for an attribute or element: XML's five specials escaped, characters XML 1.0 forbids
// (control characters but tab, newline and carriage return) dropped.
std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;  // kept inside attributes too
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\r') out += c;
    }
  }
  return out;
}

struct SuiteCounts {
  int tests = 0;
  int failures = 0;
  int errors = 0;
  int skipped = 0;
};

std::string Counts(const SuiteCounts& c) {
  return fmt::format(R"(tests="{}" failures="{}" errors="{}" skipped="{}")", c.tests, c.failures,
                     c.errors, c.skipped);
}

// Why the analysis behind `rule` did not run on this trace, or "" when it ran.
std::string SkipReason(const Report& report, const FindingRuleInfo& rule) {
  const AnalysisAvailability* availability =
      rule.analysis.empty() ? nullptr : report.Availability(rule.analysis);
  if (availability == nullptr || availability->available) return "";
  return fmt::format("{} was not analysed: the trace has no {} events", availability->title,
                     fmt::join(availability->missing_required, ", "));
}

std::string TestCase(const TraceCheck& check, const FindingRuleInfo& rule, Severity fail_on,
                     SuiteCounts* counts) {
  std::string head = fmt::format(R"(    <testcase classname="{}" name="{}")", XmlEscape(check.path),
                                 XmlEscape(rule.id));
  ++counts->tests;
  std::string skip = SkipReason(check.report, rule);
  if (!skip.empty()) {
    ++counts->skipped;
    return fmt::format("{}>\n      <skipped message=\"{}\"/>\n    </testcase>\n", head,
                       XmlEscape(skip));
  }
  std::vector<const Finding*> failing, below;
  for (const Finding& finding : check.report.findings) {
    if (finding.rule != rule.id) continue;
    (finding.severity >= fail_on ? failing : below).push_back(&finding);
  }
  if (failing.empty() && below.empty()) return head + "/>\n";
  std::string body;
  if (!failing.empty()) {
    ++counts->failures;
    std::string all;
    for (const Finding* finding : failing) {
      all += fmt::format("{}: {}\n", SeverityName(finding->severity), finding->summary);
    }
    body += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                        XmlEscape(failing.front()->summary),
                        SeverityName(failing.front()->severity), XmlEscape(all));
  }
  if (!below.empty()) {
    std::string all;
    for (const Finding* finding : below) {
      all += fmt::format("{}: {}\n", SeverityName(finding->severity), finding->summary);
    }
    body += fmt::format("      <system-out>{}</system-out>\n", XmlEscape(all));
  }
  return fmt::format("{}>\n{}    </testcase>\n", head, body);
}

// The testcase "load" of a readable trace: it fails with the loader's warnings (records skipped,
// data lost or suspect) when they fail the trace, else passes with them in its system-err.
std::string LoadTestCase(const TraceCheck& check, SuiteCounts* counts) {
  std::string head =
      fmt::format(R"(    <testcase classname="{}" name="load")", XmlEscape(check.path));
  ++counts->tests;
  const std::vector<std::string> warnings = LoaderDataWarnings(check.report.trace.meta);
  if (warnings.empty()) return head + "/>\n";
  std::string all;
  for (const std::string& warning : warnings) all += "loader warning: " + warning + "\n";
  if (!check.data_loss_fails) {
    return fmt::format("{}>\n      <system-err>{}</system-err>\n    </testcase>\n", head,
                       XmlEscape(all));
  }
  ++counts->failures;
  return fmt::format(
      "{}>\n      <failure message=\"{}\" type=\"data-loss\">{}</failure>\n    </testcase>\n",
      head, XmlEscape(warnings.front()), XmlEscape(all));
}

}  // namespace

std::string ChecksToJUnit(const std::vector<TraceCheck>& checks, Severity fail_on) {
  SuiteCounts total;
  std::string suites;
  for (const TraceCheck& check : checks) {
    SuiteCounts counts;
    std::string cases;
    if (!check.status.ok()) {
      counts.tests = counts.errors = 1;
      cases = fmt::format(
          "    <testcase classname=\"{0}\" name=\"load\">\n"
          "      <error message=\"{1}\" type=\"load\">{1}</error>\n    </testcase>\n",
          XmlEscape(check.path), XmlEscape(std::string(check.status.message())));
    } else {
      cases += LoadTestCase(check, &counts);
      for (const FindingRuleInfo& rule : FindingRules()) {
        cases += TestCase(check, rule, fail_on, &counts);
      }
    }
    suites += fmt::format("  <testsuite name=\"{}\" {}>\n{}  </testsuite>\n",
                          XmlEscape(check.path), Counts(counts), cases);
    total.tests += counts.tests;
    total.failures += counts.failures;
    total.errors += counts.errors;
    total.skipped += counts.skipped;
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"napiscope check\" {}>\n"
      "{}</testsuites>\n",
      Counts(total), suites);
}

}  // namespace napiscope
