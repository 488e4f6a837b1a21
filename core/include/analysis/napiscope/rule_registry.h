// Every finding rule napiscope has, whether or not it fired: CI outputs list them all.
#pragma once

#include <string_view>
#include <vector>

namespace napiscope {

/// One finding rule.
struct FindingRuleInfo {
  std::string_view id;        ///< Finding::rule ("softirq-latency")
  std::string_view analysis;  ///< key of the analysis it needs (AnalysisDescriptor), "" when none
  std::string_view title;     ///< what it checks, for people
};

/// All rules, in report order: analysis-unavailable, then each descriptor's rules (a new rule
/// is one line in its analysis's descriptor).
const std::vector<FindingRuleInfo>& FindingRules();

/// The rule with `id`, or nullptr.
const FindingRuleInfo* FindFindingRule(std::string_view id);

}  // namespace napiscope
