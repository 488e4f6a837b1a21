// Time windows as people write them, one syntax for the CLI, the GUI and the Python module:
// absolute trace seconds ("705.4123", as trace-cmd prints them) or an offset from the trace's
// first event ("+100ms").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/report.h"

namespace napiscope {

/// One end of a time window: an absolute trace time, or an offset from the trace's start.
struct TimeBound {
  int64_t ns = 0;                 ///< trace time, or the offset when from_trace_start
  bool from_trace_start = false;  ///< written "+DURATION"
};

/// What --from/--to and the GUI's range fields accept, for help texts and error messages.
inline constexpr std::string_view kTimeBoundSyntax =
    "trace seconds as trace-cmd prints them (705.4123) or +DURATION from the trace start "
    "(+100ms, +1.5s, +250us)";

/// Parses "705.4123" / "@705.4123" / "705412300000ns" (absolute) or "+100ms" / "+1.5s" /
/// "+850ns" (from the trace start); false with a one-line "'TEXT' is not a time: ..." in `error`
/// otherwise. The one parser of --from/--to, the GUI's time boxes and the Python module.
bool ParseTimeBound(std::string_view text, TimeBound* bound, std::string* error);

/// The trace time `bound` stands for in a trace whose first event is at `trace_start_ns`.
TimestampNs ResolveTimeBound(const TimeBound& bound, TimestampNs trace_start_ns);

/// A trace's span for messages: "705.340133 .. 705.680412 (340 ms)".
std::string FormatTraceSpan(TimestampNs first_ns, TimestampNs last_ns);

/// "" when `window` overlaps the trace's span [first_ns, last_ns]; otherwise one sentence
/// saying the window is empty or outside the trace, naming the trace's span.
std::string CheckWindowInTrace(const AnalysisWindow& window, TimestampNs first_ns,
                               TimestampNs last_ns);

/// "" when `window` overlaps the span of `trace` (or it has no events) and it has every CPU of
/// `cpus`; otherwise the sentence of CheckWindowInTrace, or "--cpu 9: the trace has CPUs 0-1"
/// (`cpu_option`, here "--cpu ", is how the caller's users name a CPU). What the CLI, the
/// export and the Python module say instead of an empty result.
std::string CheckWindowAndCpusInTrace(const AnalysisWindow& window, const std::vector<int>& cpus,
                                      std::string_view cpu_option, const TraceSummary& trace);

}  // namespace napiscope
