// Findings and statistics of a time range (markers A-B or the view): the core's
// AnalysisSession run again over the trace's events with an analysis window, exactly as
// `napiscope report --from --to` runs it. Not a second implementation in the GUI.
#pragma once

#include "loaded_trace.h"

namespace napiscope::gui {

/// The report of [from_ns, to_ns]: every event of `trace` (from its EventIndex) through a new
/// AnalysisSession whose window is that range. Blocking; safe on any thread.
Report AnalyseRange(const LoadedTrace& trace, TimestampNs from_ns, TimestampNs to_ns);

}  // namespace napiscope::gui
