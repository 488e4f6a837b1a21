// JSON and text for the network path's priority table (net_path).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"
#include "napiscope/report_render.h"

namespace napiscope::internal {

/// net_path added to the report object `out`.
void AddNetPathJson(const Report& report, nlohmann::json& out);

/// The priority table for people, as lines (none when no chain was seen or the analysis could
/// not run).
std::vector<std::string> NetPathText(const Report& report, const TextReportOptions& options);

/// --summary's headline for net_path: chains seen, how many starved or flat.
std::string NetPathSummaryLine(const Report& report);

}  // namespace napiscope::internal
