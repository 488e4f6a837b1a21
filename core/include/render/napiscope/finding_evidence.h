// A finding's evidence (the numbers behind its sentence, a JSON object) as people read it:
// the HTML report and the GUI's findings pane list it with these labels and values.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace napiscope {

/// One entry of a finding's evidence, in words.
struct EvidenceLine {
  std::string label;  ///< the key in words: "p99 threshold" for "p99_threshold_ns"
  std::string value;  ///< the value with its unit; the items of a list on lines of their own
};

/// The entries of `evidence` (a finding's object; anything else gives none) in key order:
/// times as trace seconds, durations with units (and the exact nanoseconds when the unit
/// rounds them), shares as percentages, softirq vectors and pending masks by name, kernel
/// priorities as chrt and nice say them, a blame item's role in words, -1 as none or unknown,
/// yes/no, lists and objects spelled out, long ones cut.
std::vector<EvidenceLine> EvidenceForPeople(const nlohmann::json& evidence);

}  // namespace napiscope
