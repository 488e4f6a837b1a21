// The "lost and missing events" block of the text report: short at any CPU count.
#include <algorithm>

#include <fmt/format.h>

#include "napiscope/analysis_requirements.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/report_text_parts.h"
#include "render/text_layout.h"

namespace napiscope::internal {
namespace {

void Add(const std::string& sentence, const TextReportOptions& options, bool first,
         std::string_view label, TextLines& text) {
  std::string prefix = first ? fmt::format("  {:<9} ", label) : std::string(12, ' ');
  for (std::string& line : Wrap(sentence, options.width, prefix)) text.push_back(std::move(line));
}

std::string Events(int64_t count, bool some_unknown) {
  if (!some_unknown) return Counted(count, "event");
  return count > 0 ? "at least " + Counted(count, "event")
                   : std::string("an unknown number of events");
}

// Sentences on what was lost: totals with CPU ranges, CPUs whose loss came before their first
// event (their traced span starts late; nothing is missing inside it), the worst CPU.
std::vector<std::string> LostSentences(const TraceSummary& s) {
  std::vector<int> cpus, only_leading;
  int64_t events = 0, gaps = 0;
  bool some_unknown = false;
  for (const CpuMissedSummary& row : s.missed_per_cpu) {
    if (row.gaps == 0) continue;
    cpus.push_back(row.cpu);
    events += row.events;
    gaps += row.gaps;
    some_unknown = some_unknown || row.some_unknown;
    if (row.only_leading) only_leading.push_back(row.cpu);
  }
  if (cpus.empty()) return {};
  std::vector<std::string> out;
  out.push_back(fmt::format("{} in {} gap{} on CPU{} {}.", Events(events, some_unknown), gaps,
                            gaps == 1 ? "" : "s", cpus.size() == 1 ? "" : "s", CpuRanges(cpus)));
  int64_t span_ns = s.last_ts_ns - s.first_ts_ns;
  auto share = [span_ns](int64_t ns) {
    return span_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(span_ns) : 0.0;
  };
  // Before a CPU's first event the loss shows as a late start, not as time lost inside.
  const CpuMissedSummary* latest = nullptr;
  const CpuMissedSummary* worst = nullptr;
  for (const CpuMissedSummary& row : s.missed_per_cpu) {
    if (row.gaps == 0) continue;
    const CpuMissedSummary*& kept = row.only_leading ? latest : worst;
    if (kept == nullptr || row.lost_ns > kept->lost_ns) kept = &row;
  }
  if (!only_leading.empty()) {
    std::string late = latest->lost_ns > 0
                           ? fmt::format(", by up to {} (CPU{}, {:.1f}% of the trace)",
                                         FormatDuration(latest->lost_ns), latest->cpu,
                                         share(latest->lost_ns))
                           : std::string();
    bool one = only_leading.size() == 1;
    out.push_back(fmt::format(
        "{} lost events only before {} first event{}: {} traced span{} start{} late{}, with "
        "nothing missing inside.",
        (one ? "CPU" : "CPUs ") + CpuRanges(only_leading), one ? "its" : "their", one ? "" : "s",
        one ? "its" : "their", one ? "" : "s", one ? "s" : "", late));
  }
  if (worst != nullptr) {
    out.push_back(fmt::format("Most lost inside a traced span: CPU{}, {} over {} ({:.1f}% of "
                              "the trace).",
                              worst->cpu, Events(worst->events, worst->some_unknown),
                              FormatDuration(worst->lost_ns), share(worst->lost_ns)));
  }
  out.push_back("Waits pending across a loss are dropped, not guessed; napiscope info lists the "
                "gaps per CPU.");
  return out;
}

}  // namespace

std::string NotAvailableReason(const Report& report, std::string_view id) {
  const AnalysisAvailability* availability = report.Availability(id);
  if (availability == nullptr || availability->available) return "";
  return fmt::format("the trace has no {}", fmt::join(availability->missing_required, ", "));
}

void LostAndMissing(const Report& report, const TextReportOptions& options, TextLines& text) {
  const TraceSummary& s = report.trace;
  std::vector<std::string> lost = LostSentences(s);
  std::vector<std::string> missing;
  for (const AnalysisAvailability& a : s.analyses) {
    if (!ReportRunsAnalysis(a.id)) continue;
    if (!a.available) {
      missing.push_back(fmt::format("{}: not available, needs {}.", a.title,
                                    fmt::join(a.missing_required, ", ")));
    } else if (!a.missing_optional.empty()) {
      missing.push_back(fmt::format("{}: less complete without {}.", a.title,
                                    fmt::join(a.missing_optional, ", ")));
    }
  }
  if (report.anomalies.missing_switches > 0) {
    missing.push_back(fmt::format(
        "{} sched_switch events missing (a task's events followed another's without a switch); "
        "the time before each is unknown.",
        report.anomalies.missing_switches));
  }
  if (report.anomalies.unmatched_exits > 0) {
    missing.push_back(
        fmt::format("{} IRQ/softirq exits without an entry.", report.anomalies.unmatched_exits));
  }
  if (lost.empty() && missing.empty()) return;
  text.push_back("");
  text.push_back("lost and missing events:");
  for (size_t i = 0; i < lost.size(); ++i) Add(lost[i], options, i == 0, "lost", text);
  for (size_t i = 0; i < missing.size(); ++i) Add(missing[i], options, i == 0, "missing", text);
}

}  // namespace napiscope::internal
