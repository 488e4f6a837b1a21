// Which recorded events each analysis needs, so a missing one is reported instead of silence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace napiscope {

/// The events one analysis reads ("system:event" names).
struct AnalysisRequirement {
  std::string_view id;                     ///< stable key ("softirq_latency")
  std::string_view title;                  ///< for people ("softirq raise-to-entry latency")
  std::vector<std::string_view> required;  ///< without these the analysis cannot run
  std::vector<std::string_view> optional;  ///< make the analysis more complete when present
  // An entry "a|b" is met by either event.
};

/// The requirement of every analysis napiscope has, in report order.
const std::vector<AnalysisRequirement>& AnalysisRequirements();

/// The requirement with `id`, or nullptr.
const AnalysisRequirement* FindAnalysisRequirement(std::string_view id);

/// The event part of "system:event".
std::string_view EventPartOf(std::string_view qualified_name);

}  // namespace napiscope
