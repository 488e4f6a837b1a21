// The one time syntax of napiscope's command lines and time boxes: absolute trace seconds as
// ftrace prints them ("705.4123", the CLI's --from), or an offset from the trace start after
// '+' ("+100ms", "+1.5s"). Parsed by the core's ParseTimeBound, as the CLI and Python do.
#pragma once

#include <QString>

#include "napiscope/event.h"

namespace napiscope::gui {

/// Parses `text` as an absolute trace time ("705.4123", "705412300us"; a leading '@' is
/// accepted) or an offset from `trace_start_ns` ("+100ms", "+250us", "+1.5s"); false with a
/// one-line `error` naming the text otherwise.
bool ParseTraceTime(const QString& text, TimestampNs trace_start_ns, TimestampNs* ts_ns,
                    QString* error);

/// Decimals of seconds needed to tell apart times `resolution_ns` apart (0..9).
int SecondDecimals(TimestampNs resolution_ns);

/// An absolute trace time in seconds with as many decimals as `resolution_ns` needs
/// ("705.437755", "705.4377551"), accepted back by ParseTraceTime.
QString FormatTraceSeconds(TimestampNs ts_ns, TimestampNs resolution_ns);

/// The unit a time offset is shown in: the largest of s, ms, us and ns not above `offset_ns`'s
/// magnitude (ns below 1 ns), with the decimals that tell apart offsets `resolution_ns` apart.
struct OffsetUnit {
  TimestampNs ns = 1;       ///< nanoseconds in the unit
  const char* name = "ns";  ///< "s", "ms", "us" or "ns"
  int decimals = 0;         ///< decimals of the unit to show
};
OffsetUnit OffsetUnitOf(TimestampNs offset_ns, TimestampNs resolution_ns);

/// An offset from the trace start in the ParseTraceTime syntax, in the largest unit that keeps
/// `resolution_ns` visible ("+2.341523s", "+150.02ms").
QString FormatOffset(TimestampNs offset_ns, TimestampNs resolution_ns);

}  // namespace napiscope::gui
