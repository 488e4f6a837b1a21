#include "napiscope/rule_registry.h"

#include "napiscope/analysis_descriptor.h"

namespace napiscope {

const std::vector<FindingRuleInfo>& FindingRules() {
  static const std::vector<FindingRuleInfo> kRules = [] {
    std::vector<FindingRuleInfo> rules = {
        {"analysis-unavailable", "", "every analysis had the events it needs"}};
    for (const AnalysisDescriptor& analysis : AnalysisDescriptors()) {
      for (const RuleDescriptor& rule : analysis.rules) {
        rules.push_back({rule.id, analysis.key, rule.title});
      }
    }
    return rules;
  }();
  return kRules;
}

const FindingRuleInfo* FindFindingRule(std::string_view id) {
  for (const FindingRuleInfo& rule : FindingRules()) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

}  // namespace napiscope
