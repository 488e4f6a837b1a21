// JSON and text for the network path's priority table (net_path).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"

namespace napiscope::internal {

/// net_path added to the report object `out`.
void AddNetPathJson(const Report& report, nlohmann::json& out);

/// The priority table for people, as lines (none when no chain was seen).
std::vector<std::string> NetPathText(const Report& report);

}  // namespace napiscope::internal
