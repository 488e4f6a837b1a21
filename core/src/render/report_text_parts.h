// The sections of the text report (report_text.cpp puts them in order).
#pragma once

#include <string>
#include <vector>

#include "napiscope/report.h"
#include "napiscope/report_render.h"

namespace napiscope::internal {

/// Lines of text being built.
using TextLines = std::vector<std::string>;

/// One short block below the findings: lost events (CPU ranges, totals, the worst CPU), the
/// events an analysis needs that were not recorded, and context anomalies.
void LostAndMissing(const Report& report, const TextReportOptions& options, TextLines& text);

/// --summary: one line per analysis with its headline numbers.
void AnalysisSummaries(const Report& report, const TextReportOptions& options, TextLines& text);

/// Softirq raise-to-entry latency, the longest waits, softirq and hard-IRQ run times.
void LatencyAndRuntimeTables(const Report& report, const TextReportOptions& options,
                             TextLines& text);

/// CPU time with CPUs as rows: by context, then softirq time by vector; `width` as
/// TextTable::Lines.
void CpuTimeTables(const Report& report, size_t width, TextLines& text);

/// "the trace has no irq:softirq_raise" when analysis `id` could not run, else "".
std::string NotAvailableReason(const Report& report, std::string_view id);

}  // namespace napiscope::internal
