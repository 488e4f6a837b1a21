// JSON and text for the report sections on IRQ/NAPI threads and ksoftirqd, blocked ksoftirqd,
// idle with pending softirqs and softirq ordering stalls.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"
#include "napiscope/report_render.h"

namespace napiscope::internal {

/// The DurationStats fields (count, min_ns, p50_ns, ..., max_at_ns, exact) added to `row`.
void AddStatsJson(const DurationStats& stats, nlohmann::json& row);

/// A BlameItem as JSON: kind, name, holder (a phrase), time_ns, and pid/prio, irq or vec.
nlohmann::json BlameItemJson(const BlameItem& item);

/// irq_threads, napi_threads, ksoftirqd, ksoftirqd_blocked, idle_with_pending and
/// softirq_ordering_stalls added to the report object `out`.
void AddSchedulingJson(const Report& report, nlohmann::json& out);

/// The same sections for people, as lines (empty sections say so in one line).
std::vector<std::string> SchedulingText(const Report& report, const TextReportOptions& options);

}  // namespace napiscope::internal
