// What `napiscope check` judges against: thresholds and the failing severity, read from a
// napiscope.toml / .json config and from flags through one table of keys.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/findings.h"
#include "napiscope/thresholds.h"

namespace napiscope {

/// One configurable threshold: its key, what it means, and the Thresholds field it sets.
struct ThresholdKey {
  std::string_view key;          ///< the config key, the field's name ("ordering_stall_ns")
  std::string_view description;  ///< one line for people
  std::variant<int64_t Thresholds::*, double Thresholds::*> field;  ///< "_ns" keys are durations
  std::map<uint32_t, int64_t> Thresholds::*by_vec = nullptr;  ///< per-vector overrides, or none
};

/// Every configurable threshold; a new threshold is one line in this table.
const std::vector<ThresholdKey>& ThresholdKeys();

/// The value of `key` in `thresholds` as a config file writes it ("1ms", "20", "0.25").
std::string ThresholdValueText(const ThresholdKey& key, const Thresholds& thresholds);

/// What a check configuration sets.
struct CheckConfig {
  Thresholds thresholds;                  ///< the rules' limits
  Severity fail_on = Severity::kWarning;  ///< a finding at or above this fails the check
  bool allow_data_loss = false;  ///< the loader's warnings do not fail a trace (TraceCheck)
};

/// Sets threshold `key` ("ordering_stall_ns", or "NET_RX.softirq_latency_max_error_ns" for one
/// vector) from text: durations as integer ns or with a unit ("500us", "1.5ms"), counts as
/// integers, shares as numbers (0.25). Errors name the key.
absl::Status SetThreshold(std::string_view key, std::string_view value, Thresholds* thresholds);

/// Parses "info", "warning" or "error".
bool ParseSeverity(std::string_view text, Severity* severity);

/// Reads a config file on top of `config`: TOML, or JSON when the name ends in ".json", with
/// `fail_on = "warning"|"error"` and a `[thresholds]` table of ThresholdKeys (and
/// `[thresholds.NET_RX]` tables of per-vector overrides). Errors name the file and the key.
absl::Status LoadCheckConfig(const std::string& path, CheckConfig* config);

}  // namespace napiscope
