#include "napiscope/napi_rt_rows.h"

namespace napiscope {

std::string_view NapiContextName(SoftirqSite site) {
  return site == SoftirqSite::kNone ? "busy_poll" : SoftirqSiteName(site);
}

SoftirqSite NapiPollContext(const ContextFrame& frame) {
  return frame.site == SoftirqSite::kNone && !frame.start_known ? SoftirqSite::kUnknown
                                                                : frame.site;
}

std::string_view SchedPolicyClassName(SchedPolicyClass policy) {
  return policy == SchedPolicyClass::kRealtime ? "rt" : "normal";
}

std::string_view WakeBlameRole(const BlameItem& item, int16_t woken_prio) {
  // An interrupt context is named as the context kinds are ("hardirq", "softirq", "napi_poll").
  if (item.kind != ContextKind::kTask) return ContextKindName(item.kind);
  if (item.pid == 0) return "idle";
  if (item.prio < 0 || woken_prio < 0) return "task";
  return item.prio <= woken_prio ? "higher_prio" : "lower_prio";
}

}  // namespace napiscope
