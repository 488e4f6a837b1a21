// Findings as instant events on the tracks of what they concern, with the sentence and the
// numbers as arguments.
#pragma once

#include <vector>

#include "context_tracks.h"
#include "napiscope/findings.h"

namespace napiscope::perfetto_export {

/// Writes one instant per finding at its start: on its CPU's findings track, else on the
/// findings track of the thread it is about (its pid), else on the trace's findings track.
void WriteFindingInstants(const std::vector<Finding>& findings, TrackLayout* layout);

}  // namespace napiscope::perfetto_export
