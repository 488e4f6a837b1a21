// `napiscope report` for people: what the trace is, the findings, what the trace lost or lacks,
// then the tables (or one line per analysis with --summary).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/info_report.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_render.h"
#include "render/napi_rt_render.h"
#include "render/net_path_render.h"
#include "render/report_text_parts.h"
#include "render/scheduling_render.h"
#include "render/text_layout.h"

namespace napiscope {
namespace {

using internal::TextLines;

void Header(const Report& report, size_t width, TextLines& text) {
  const TraceSummary& s = report.trace;
  text.push_back(fmt::format("trace:    {}", s.meta.path));
  text.push_back(fmt::format("format:   {}", DescribeTraceFormat(s.meta)));
  if (!s.meta.kernel_release.empty()) {
    text.push_back(fmt::format("kernel:   {}", s.meta.kernel_release));
  }
  for (std::string& line :
       internal::Wrap(internal::KernelModelLine(report.kernel), width, "model:    ")) {
    text.push_back(std::move(line));
  }
  text.push_back(fmt::format("cpus:     {}, events: {}", s.meta.cpus, s.events));
  if (s.events > 0) {
    text.push_back(fmt::format("span:     {} .. {} ({})", FormatTimestamp(s.first_ts_ns),
                               FormatTimestamp(s.last_ts_ns),
                               FormatDuration(s.last_ts_ns - s.first_ts_ns)));
  }
  if (report.window.restricted()) {
    const AnalysisWindow& w = report.window;
    std::string from = w.from_ns == std::numeric_limits<TimestampNs>::min()
                           ? std::string("start")
                           : FormatTimestamp(w.from_ns);
    std::string to = w.to_ns == std::numeric_limits<TimestampNs>::max() ? std::string("end")
                                                                        : FormatTimestamp(w.to_ns);
    text.push_back(fmt::format("window:   {} .. {} (what begins inside counts)", from, to));
  }
  if (!report.cpus.empty()) {
    text.push_back(fmt::format("rows:     cpu {}", internal::CpuRanges(report.cpus)));
  }
}

void Findings(const Report& report, size_t width, TextLines& text) {
  text.push_back("");
  if (report.findings.empty()) {
    text.push_back("findings: none");
    return;
  }
  int counts[3] = {0, 0, 0};
  for (const Finding& f : report.findings) ++counts[static_cast<int>(f.severity)];
  std::vector<std::string> parts;
  auto count = [&parts](int n, const char* word) {
    if (n > 0) parts.push_back(fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"));
  };
  count(counts[static_cast<int>(Severity::kError)], "error");
  count(counts[static_cast<int>(Severity::kWarning)], "warning");
  if (int infos = counts[static_cast<int>(Severity::kInfo)]; infos > 0) {
    parts.push_back(fmt::format("{} info", infos));
  }
  text.push_back(fmt::format("findings ({}):", fmt::join(parts, ", ")));
  for (const Finding& f : report.findings) {
    for (std::string& line :
         internal::Wrap(f.summary, width, fmt::format("  {:<8} ", SeverityName(f.severity)))) {
      text.push_back(std::move(line));
    }
    if (f.end_ns > f.start_ns) {
      text.push_back(fmt::format("  {:<8} at {} .. {}", "", FormatTimestamp(f.start_ns),
                                 FormatTimestamp(f.end_ns)));
    }
  }
}

}  // namespace

std::string ReportToText(const Report& report, const TextReportOptions& options) {
  TextLines text;
  Header(report, options.width, text);
  for (const std::string& warning : report.trace.meta.warnings) {
    for (std::string& line : internal::Wrap(warning, options.width, "warning:  ")) {
      text.push_back(std::move(line));
    }
  }
  Findings(report, options.width, text);
  internal::LostAndMissing(report, options, text);
  if (options.summary) {
    internal::AnalysisSummaries(report, options, text);
  } else {
    internal::LatencyAndRuntimeTables(report, options, text);
    internal::CpuTimeTables(report, options.width, text);
    for (std::string& line : internal::SchedulingText(report, options)) {
      text.push_back(std::move(line));
    }
    for (std::string& line : internal::NapiRtText(report, options)) {
      text.push_back(std::move(line));
    }
    for (std::string& line : internal::NetPathText(report, options)) {
      text.push_back(std::move(line));
    }
  }
  return internal::JoinLines(text);
}

}  // namespace napiscope
