// Renders a TraceSummary (`napiscope info`) as text or JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "napiscope/trace_summary.h"

namespace napiscope {

/// The file's format for people: "trace.dat v7, compression zstd 1.5.4", "ftrace text", with
/// ", buffer instance 'net'" when the trace read an instance's buffer.
std::string DescribeTraceFormat(const TraceMeta& meta);

/// The summary for people, several lines ending in a newline; the events by name as a column
/// per CPU when those fit in `width` columns (0: any width), else as each name's busiest CPUs.
std::string InfoToText(const TraceSummary& summary, size_t width = 120);

/// Missed-event gaps as JSON rows {cpu, ts_ns, last_before_ns, count}.
nlohmann::json MissedEventsJson(const std::vector<MissedEventsMark>& missed);

/// Missed events of the CPUs that lost any, as JSON rows {cpu, gaps, events, some_unknown,
/// lost_ns}.
nlohmann::json MissedPerCpuJson(const std::vector<CpuMissedSummary>& rows);

/// One CPU's losses for people: "2 gaps, 42 events, 3.00 ms lost (1.2% of the trace)", or
/// "1 gap, 42 events, lost before the CPU's first event" when no traced time was lost.
std::string DescribeMissed(const CpuMissedSummary& row, int64_t span_ns);

/// The summary as the documented "napiscope.info/2" JSON object (docs/info-schema.md).
nlohmann::json InfoToJson(const TraceSummary& summary);

}  // namespace napiscope
