#include "analysis/lost_events_findings.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "napiscope/format.h"

namespace napiscope::internal {

void NoteLostEvents(const std::vector<MissedEventsMark>& missed, TimestampNs trace_first_ts_ns,
                    std::vector<Finding>* findings) {
  for (Finding& finding : *findings) {
    if (finding.end_ns <= finding.start_ns) continue;
    int64_t gaps = 0, events = 0, lost_ns = 0;
    bool events_unknown = false;
    std::set<int> cpus;
    for (const MissedEventsMark& mark : missed) {
      if (finding.cpu >= 0 && mark.cpu != finding.cpu) continue;
      TimestampNs from = mark.last_before_ns >= 0 ? mark.last_before_ns : trace_first_ts_ns;
      TimestampNs overlap_start = std::max(from, finding.start_ns);
      TimestampNs overlap_end = std::min(mark.ts_ns, finding.end_ns);
      if (overlap_end <= overlap_start) continue;
      ++gaps;
      lost_ns += overlap_end - overlap_start;
      if (mark.count < 0) events_unknown = true;
      else events += mark.count;
      cpus.insert(mark.cpu);
    }
    if (gaps == 0) continue;
    finding.evidence["lost_events"] = {{"gaps", gaps},
                                       {"events", events_unknown ? -1 : events},
                                       {"lost_ns", lost_ns},
                                       {"cpus", cpus}};
    finding.summary += fmt::format(
        " Events were lost inside this interval ({} on CPU{}): it may be incomplete there.",
        FormatDuration(lost_ns), fmt::join(cpus, ", CPU"));
  }
}

}  // namespace napiscope::internal
