// Renders a Report (`napiscope report`) as text for people or as "napiscope.report/1" JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"

namespace napiscope {

/// The report for people: header, findings, then tables; ends in a newline.
std::string ReportToText(const Report& report);

/// The report as the documented "napiscope.report/1" JSON object (docs/report-schema.md).
nlohmann::json ReportToJson(const Report& report);

}  // namespace napiscope
