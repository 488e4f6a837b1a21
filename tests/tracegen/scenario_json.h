// The Scenario builder as JSON, for the napiscope-tracegen command line:
//
//   {"cpus": 2, "uname": "...",
//    "tasks": [{"pid": 181, "comm": "irq/354-4848400", "prio": 49, "running_on": 1}],
//    "events": [{"ts": 1000, "cpu": 0, "event": "irq_handler_entry", "irq": 354,
//                "name": "4848400.ethernet"},
//               {"ts": 1200, "cpu": 0, "event": "missed", "count": 12}, ...]}
//
// Event fields use the kernel's field names (sched_switch: prev_pid, prev_state, next_pid);
// "common_pid" and "common_flags" override what the builder derives. See
// testdata/scenarios/README.md for every event.
#pragma once

#include <memory>

#include <absl/status/status.h>
#include <nlohmann/json.hpp>

#include "tracegen/scenario.h"

namespace napiscope::tracegen {

/// Builds `*scenario` (which is replaced) from `json`; errors name the offending event.
absl::Status ScenarioFromJson(const nlohmann::json& json, std::unique_ptr<Scenario>* scenario);

}  // namespace napiscope::tracegen
