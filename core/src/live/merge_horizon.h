// How far the live capture may merge the CPUs' events: no CPU may later add an earlier one.
#pragma once

#include <algorithm>
#include <vector>

#include "napiscope/event.h"

namespace napiscope::internal {

/// The time up to which every CPU's events have been read: `committed_ns` (events stamped
/// before it are in the ring buffers, so a CPU read to its last page has given them all),
/// lowered to the newest event read from each CPU whose read stopped before its last page
/// (`drained[i]` false; `last_read_ns[i]` -1 when nothing was read from it yet).
inline TimestampNs MergeHorizon(TimestampNs committed_ns,
                                const std::vector<TimestampNs>& last_read_ns,
                                const std::vector<bool>& drained) {
  TimestampNs horizon = committed_ns;
  for (size_t i = 0; i < drained.size() && i < last_read_ns.size(); ++i) {
    if (!drained[i]) horizon = std::min(horizon, last_read_ns[i]);
  }
  return horizon;
}

}  // namespace napiscope::internal
