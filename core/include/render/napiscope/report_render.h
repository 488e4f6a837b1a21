// Renders a Report (`napiscope report`) as text for people or as "napiscope.report/1" JSON.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"

namespace napiscope {

/// How much of the report the text shows, and how wide.
struct TextReportOptions {
  bool summary = false;  ///< findings, lost/missing events and one line per analysis; no tables
  size_t top = 10;       ///< entries of every "longest" / "worst" list
  size_t width = 120;    ///< findings and sentences wrapped to this many columns; 0: never
};

/// The report for people: header, findings, lost and missing events, then the tables (or one
/// line per analysis with options.summary); ends in a newline.
std::string ReportToText(const Report& report, const TextReportOptions& options = {});

/// The report as the documented "napiscope.report/1" JSON object (docs/report-schema.md).
nlohmann::json ReportToJson(const Report& report);

}  // namespace napiscope
