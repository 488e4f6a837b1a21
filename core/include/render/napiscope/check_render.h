// `napiscope check` results for CI: text, "napiscope.check/1" JSON, JUnit XML, Markdown.
#pragma once

#include <string>
#include <vector>

#include <absl/status/status.h>
#include <nlohmann/json.hpp>

#include "napiscope/findings.h"
#include "napiscope/report.h"

namespace napiscope {

/// One trace judged by `napiscope check`.
struct TraceCheck {
  std::string path;     ///< the file as given
  absl::Status status;  ///< not ok: the trace could not be read, `report` is empty
  Report report;        ///< the analyses' result when status is ok
  /// Whether the loader's warnings (report.trace.meta.warnings: records skipped, data lost or
  /// suspect) fail the trace; `check --allow-data-loss` clears it. They are shown either way.
  bool data_loss_fails = true;
};

/// The loader's warnings that say data was skipped, lost or is suspect: `meta.warnings` but the
/// note that a text trace's timestamps are printed to a step coarser than 1 ns
/// (`meta.time_resolution_ns`), which loses no event. These fail `check` and head a diff.
std::vector<std::string> LoaderDataWarnings(const TraceMeta& meta);

/// How one trace fared: counts of findings by severity, and whether it failed.
struct CheckOutcome {
  int errors = 0;    ///< findings of severity error
  int warnings = 0;  ///< findings of severity warning
  int infos = 0;     ///< findings of severity info
  int load_warnings = 0;  ///< the loader's warnings (report.trace.meta.warnings)
  /// A finding reached `fail_on`, or the loader warned and `data_loss_fails` (false when the
  /// trace was unreadable).
  bool failed = false;
};

/// Counts `check`'s findings and loader warnings and compares them with `fail_on` and the
/// trace's data-loss policy.
CheckOutcome JudgeCheck(const TraceCheck& check, Severity fail_on);

/// For people: per trace one verdict line, then the loader's warnings and its findings at or
/// above `fail_on`, each on one line (for grep in a CI log) or, with a `width`, wrapped under
/// its sentence's column.
std::string ChecksToText(const std::vector<TraceCheck>& checks, Severity fail_on, size_t width = 0);

/// The "napiscope.check/1" object (docs/report-schema.md): per trace its verdict and report.
nlohmann::json ChecksToJson(const std::vector<TraceCheck>& checks, Severity fail_on);

/// JUnit XML: a testsuite per trace, its first testcase "load" and then one per rule of
/// FindingRules(); a rule fails with the sentences of its findings at or above `fail_on`, is
/// skipped when its analysis lacked events; "load" is in error when the trace is unreadable and
/// fails with the loader's warnings (or, when they do not fail the trace, passes with them in
/// its system-err).
std::string ChecksToJUnit(const std::vector<TraceCheck>& checks, Severity fail_on);

/// Markdown for a pull-request comment: a summary table, the loader's warnings, then the
/// failing findings.
std::string ChecksToMarkdown(const std::vector<TraceCheck>& checks, Severity fail_on);

}  // namespace napiscope
