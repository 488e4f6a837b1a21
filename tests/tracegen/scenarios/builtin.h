// The scenarios of testdata/scenarios: each builds its events and states, as exact integers,
// what the analyses must find in them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <nlohmann/json.hpp>

#include "tracegen/scenario.h"

namespace napiscope::tracegen {

/// One named scenario.
struct BuiltinScenario {
  std::string_view name;     ///< file stem in testdata/scenarios
  std::string_view summary;  ///< one sentence for the README and the JSON
  /// Builds the scenario; `facts` receives the intended analysis results.
  std::function<std::unique_ptr<Scenario>(nlohmann::json* facts)> build;
};

/// All scenarios, in README order.
const std::vector<BuiltinScenario>& BuiltinScenarios();

/// The scenario called `name`, or nullptr.
const BuiltinScenario* FindBuiltinScenario(std::string_view name);

/// The expected-results document: counts the loaders must report (per name, per CPU, gaps)
/// plus the scenario's intended facts.
absl::Status ExpectedJson(const BuiltinScenario& builtin, const Scenario& scenario,
                          const nlohmann::json& facts, nlohmann::json* expected);

/// Writes DIR/NAME.dat and DIR/NAME.expected.json.
absl::Status WriteBuiltinScenario(const BuiltinScenario& builtin, const std::string& dir);

// The builders, one per file in scenarios/.
std::unique_ptr<Scenario> BuildIrqThreadsBouncing(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildIrqThreadsPinned(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildKsoftirqdBlocked(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildSoftirqContexts(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildNapiBudget(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildMissedEventsGap(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildRtWakeLatency(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildRt2626SirqThreads(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildRt44IrqThreads(nlohmann::json* facts);
std::unique_ptr<Scenario> BuildRtCurrentThreadedNapi(nlohmann::json* facts);

}  // namespace napiscope::tracegen
