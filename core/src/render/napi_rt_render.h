// JSON and text for the report sections on NAPI polling, RT wake latency and the kernel's
// preemption model.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"
#include "napiscope/report_render.h"

namespace napiscope::internal {

/// napi, rt_wake_latency and kernel added to the report object `out`.
void AddNapiRtJson(const Report& report, nlohmann::json& out);

/// The NAPI and RT wake latency sections for people, as lines.
std::vector<std::string> NapiRtText(const Report& report, const TextReportOptions& options);

/// True when some of the report's NAPI rows are the backlog's (NapiRow::IsBacklog).
bool HasBacklogPolls(const Report& report);

/// "PREEMPT_RT: likely (...)": the header line on the preemption model.
std::string KernelModelLine(const KernelModel& kernel);

}  // namespace napiscope::internal
