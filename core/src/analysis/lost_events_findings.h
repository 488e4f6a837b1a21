// Findings whose interval overlaps a lost-events gap say so.
#pragma once

#include <vector>

#include "napiscope/findings.h"
#include "napiscope/trace_meta.h"

namespace napiscope::internal {

/// Adds to every finding with an interval that overlaps a gap on its CPU (any CPU when the
/// finding is not about one) the evidence `lost_events {gaps, events, lost_ns, cpus}` and a
/// sentence saying so; a leading gap counts from `trace_first_ts_ns`.
void NoteLostEvents(const std::vector<MissedEventsMark>& missed, TimestampNs trace_first_ts_ns,
                    std::vector<Finding>* findings);

}  // namespace napiscope::internal
