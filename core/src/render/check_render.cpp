#include "napiscope/check_render.h"

#include <fmt/format.h>

#include "napiscope/phrasing.h"
#include "napiscope/report_render.h"
#include "render/text_layout.h"

namespace napiscope {

std::vector<std::string> LoaderDataWarnings(const TraceMeta& meta) {
  std::vector<std::string> warnings;
  for (const std::string& warning : meta.warnings) {
    // The text loader's note on its timestamps' step (text_loader.cpp): precision, not loss.
    if (meta.time_resolution_ns > 1 && warning.starts_with("timestamps are printed to ")) continue;
    warnings.push_back(warning);
  }
  return warnings;
}

CheckOutcome JudgeCheck(const TraceCheck& check, Severity fail_on) {
  CheckOutcome outcome;
  for (const Finding& finding : check.report.findings) {
    ++(finding.severity == Severity::kError     ? outcome.errors
       : finding.severity == Severity::kWarning ? outcome.warnings
                                                : outcome.infos);
    outcome.failed = outcome.failed || finding.severity >= fail_on;
  }
  outcome.load_warnings = static_cast<int>(LoaderDataWarnings(check.report.trace.meta).size());
  outcome.failed = outcome.failed || (outcome.load_warnings > 0 && check.data_loss_fails);
  outcome.failed = outcome.failed && check.status.ok();
  return outcome;
}

namespace {

std::string Counts(const TraceCheck& check, const CheckOutcome& outcome) {
  std::string counts = fmt::format("{}, {}, {} info", Counted(outcome.errors, "error"),
                                   Counted(outcome.warnings, "warning"), outcome.infos);
  if (outcome.load_warnings > 0) {
    counts += fmt::format(", {}{}", Counted(outcome.load_warnings, "loader warning"),
                          check.data_loss_fails ? "" : " (allowed)");
  }
  return counts;
}

std::string_view Verdict(const TraceCheck& check, const CheckOutcome& outcome) {
  return !check.status.ok() ? "error" : outcome.failed ? "fail" : "pass";
}

}  // namespace

std::string ChecksToText(const std::vector<TraceCheck>& checks, Severity fail_on, size_t width) {
  std::string text;
  for (const TraceCheck& check : checks) {
    if (!check.status.ok()) {
      text += fmt::format("ERROR {}\n", std::string(check.status.message()));
      continue;
    }
    CheckOutcome outcome = JudgeCheck(check, fail_on);
    text += fmt::format("{}  {}: {}\n", outcome.failed ? "FAIL" : "pass", check.path,
                        Counts(check, outcome));
    // The loader's warnings first: records skipped or suspect make every finding less sure.
    for (const std::string& warning : LoaderDataWarnings(check.report.trace.meta)) {
      std::string line = fmt::format("      {:<8} {}", "loader", warning);
      text += width == 0 || line.size() <= width
                  ? line + "\n"
                  : internal::JoinLines(internal::Wrap(warning, width, line.substr(0, 15),
                                                       std::string(15, ' ')));
    }
    for (const Finding& finding : check.report.findings) {
      if (finding.severity < fail_on) continue;
      std::string line = fmt::format("      {:<8} {:<24} {}", SeverityName(finding.severity),
                                     finding.rule, finding.summary);
      if (width == 0 || line.size() <= width) {
        text += line + "\n";
        continue;
      }
      // Narrower: the rule on its line, the sentence wrapped under it.
      text += fmt::format("      {:<8} {}\n", SeverityName(finding.severity), finding.rule);
      text += internal::JoinLines(internal::Wrap(finding.summary, width, std::string(15, ' ')));
    }
  }
  return text;
}

nlohmann::json ChecksToJson(const std::vector<TraceCheck>& checks, Severity fail_on) {
  nlohmann::json traces = nlohmann::json::array();
  std::string_view overall = "pass";
  for (const TraceCheck& check : checks) {
    CheckOutcome outcome = JudgeCheck(check, fail_on);
    std::string_view verdict = Verdict(check, outcome);
    if (verdict == "error" || (verdict == "fail" && overall == "pass")) overall = verdict;
    bool ok = check.status.ok();
    traces.push_back({{"path", check.path},
                      {"result", verdict},
                      {"error", ok ? nlohmann::json(nullptr) : nlohmann::json(std::string(check.status.message()))},
                      {"errors", outcome.errors},
                      {"warnings", outcome.warnings},
                      {"infos", outcome.infos},
                      {"load_warnings", LoaderDataWarnings(check.report.trace.meta)},
                      {"report", ok ? ReportToJson(check.report) : nlohmann::json(nullptr)}});
  }
  bool data_loss_fails = checks.empty() || checks.front().data_loss_fails;
  return {{"schema", "napiscope.check/1"},
          {"fail_on", SeverityName(fail_on)},
          {"fail_on_data_loss", data_loss_fails},
          {"result", overall},
          {"traces", traces}};
}

}  // namespace napiscope
