#include "analysis/finding_rules.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "analysis/held_evidence.h"
#include "napiscope/analysis_requirements.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"

namespace napiscope::internal {
namespace {

// "held by cyclictest (pid 812, RT 98) 2.90 ms, hard IRQ eth0 (30) 80.0 us": the two largest.
std::string BlameClause(const SoftirqWait& wait) {
  std::string clause;
  for (size_t i = 0; i < wait.blame.size() && i < 2; ++i) {
    clause += fmt::format("{}{} {}", i == 0 ? "held by " : ", ", DescribeBlameHolder(wait.blame[i]),
                          FormatDuration(wait.blame[i].time_ns));
  }
  if (wait.unknown_ns > 0) {
    clause +=
        fmt::format("{}{} unknown", clause.empty() ? "" : ", ", FormatDuration(wait.unknown_ns));
  }
  return clause;
}

nlohmann::json BlameJson(const std::vector<BlameItem>& blame) {
  nlohmann::json items = nlohmann::json::array();
  for (const BlameItem& item : blame) {
    items.push_back({{"holder", DescribeBlameHolder(item)}, {"time_ns", item.time_ns}});
  }
  return items;
}

}  // namespace

void SoftirqLatencyFindings(const std::vector<SoftirqLatencyRow>& rows,
                            const Thresholds& thresholds, std::vector<Finding>* findings) {
  for (const SoftirqLatencyRow& row : rows) {
    const DurationStats& delay = row.delay;
    if (delay.count == 0) continue;
    int64_t max_limit_ns = thresholds.SoftirqLatencyMaxErrorNs(row.vec);
    int64_t p99_limit_ns = thresholds.SoftirqLatencyP99WarningNs(row.vec);
    bool max_error = max_limit_ns > 0 && delay.max_ns > max_limit_ns;
    bool p99_warning = p99_limit_ns > 0 && delay.p99_ns > p99_limit_ns;
    if (!max_error && !p99_warning) continue;
    Finding finding;
    finding.rule = "softirq-latency";
    finding.severity = max_error ? Severity::kError : Severity::kWarning;
    finding.cpu = row.cpu;
    std::string vec = VectorLabel(row.vec);
    finding.summary = fmt::format("{} on CPU{} waited up to {} (p99 {}, {} wait{})", vec, row.cpu,
                                  FormatDuration(delay.max_ns), FormatDuration(delay.p99_ns),
                                  delay.count, delay.count == 1 ? "" : "s");
    finding.vec = static_cast<int32_t>(row.vec);
    finding.evidence = {{"vec", row.vec},         {"name", vec},
                        {"count", delay.count},   {"p99_ns", delay.p99_ns},
                        {"max_ns", delay.max_ns}, {"max_at_ns", delay.max_at_ns}};
    if (max_error) {
      finding.evidence["max_threshold_ns"] = max_limit_ns;
    }
    if (p99_warning) {
      finding.evidence["p99_threshold_ns"] = p99_limit_ns;
    }
    finding.start_ns = delay.max_at_ns;
    finding.end_ns = delay.max_at_ns + delay.max_ns;
    if (!row.worst.empty()) {
      const SoftirqWait& worst = row.worst.front();
      std::string clause = BlameClause(worst);
      if (!clause.empty()) finding.summary += " — " + clause;
      finding.start_ns = worst.raise_ns;
      finding.end_ns = worst.entry_ns;
      finding.evidence["ran_in"] = std::string(SoftirqSiteName(worst.ran_in));
      finding.evidence["blame"] = BlameJson(worst.blame);
      finding.evidence["unknown_ns"] = worst.unknown_ns;
      nlohmann::json named = nlohmann::json::array();
      for (size_t i = 0; i < worst.blame.size() && i < 2; ++i) {  // BlameClause's
        nlohmann::json held = HeldByBlameItem(row.cpu, worst.raise_ns, worst.entry_ns,
                                              worst.blame[i]);
        if (!held.is_null()) named.push_back(held);
      }
      finding.evidence["holders"] = named;
    }
    findings->push_back(std::move(finding));
  }
}

void UnavailableAnalysisFindings(const TraceSummary& trace, std::vector<Finding>* findings) {
  for (const AnalysisAvailability& availability : trace.analyses) {
    if (availability.available) continue;
    if (!ReportRunsAnalysis(availability.id)) {
      continue;
    }
    Finding finding;
    finding.rule = "analysis-unavailable";
    finding.severity = Severity::kInfo;
    // Not availability.note: its hint depends on whether the file lists event formats, and the
    // same events must give the same findings whatever file they came from.
    finding.summary =
        fmt::format("{} was not analysed: the trace has no {} events", availability.title,
                    fmt::join(availability.missing_required, ", "));
    finding.evidence = {{"analysis", availability.id},
                        {"missing_events", availability.missing_required}};
    findings->push_back(std::move(finding));
  }
}

void SortFindings(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    return std::make_tuple(-static_cast<int>(a.severity), a.cpu, a.start_ns, a.rule) <
           std::make_tuple(-static_cast<int>(b.severity), b.cpu, b.start_ns, b.rule);
  });
}

}  // namespace napiscope::internal
