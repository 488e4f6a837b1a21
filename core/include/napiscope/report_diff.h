// `napiscope diff`: two reports side by side, per metric that matters, with the change.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/report.h"

namespace napiscope {

/// What a metric's number is.
enum class MetricUnit : uint8_t {
  kNs,     ///< a duration, integer nanoseconds
  kShare,  ///< a fraction 0..1
  kCount,  ///< a number of things
};

/// How a metric's change is judged.
enum class MetricDirection : uint8_t {
  kLowerIsBetter,  ///< a decrease is an improvement
  kNeutral,        ///< a change is only shown (CPU time moving between contexts)
};

/// How one metric changed from before to after.
enum class ChangeVerdict : uint8_t {
  kSame,        ///< equal
  kImproved,    ///< moved the better way
  kRegressed,   ///< moved the worse way
  kChanged,     ///< a neutral metric moved
  kOnlyBefore,  ///< the subject is gone in the after trace
  kOnlyAfter,   ///< the subject is new in the after trace
};

/// Stable name of a verdict ("same", "improved", "regressed", "changed", "only_before",
/// "only_after").
std::string_view ChangeVerdictName(ChangeVerdict verdict);

/// One metric of one subject in both reports.
struct DiffRow {
  std::string metric;   ///< stable id ("softirq_latency_p99_ns")
  std::string label;    ///< for people ("softirq latency p99")
  std::string subject;  ///< what it is about ("CPU1 NET_RX", "irq/30-eth0", "all CPUs")
  MetricUnit unit = MetricUnit::kNs;
  MetricDirection direction = MetricDirection::kLowerIsBetter;
  std::optional<double> before;  ///< absent when the before trace has no such subject
  std::optional<double> after;   ///< absent when the after trace has no such subject
  ChangeVerdict verdict = ChangeVerdict::kSame;

  /// after - before (0 when one side is absent).
  double Change() const;
  /// (after - before) / before; absent when a side is absent or before is 0 and after is not.
  std::optional<double> RelativeChange() const;
};

/// The comparison of two reports.
struct ReportDiff {
  std::string before_path;    ///< the before trace as given
  std::string after_path;     ///< the after trace as given
  std::vector<DiffRow> rows;  ///< by metric, then subject
};

/// Compares softirq latency per (cpu, vec) p50/p99/max, IRQ- and NAPI-thread cross-CPU share
/// and migrations, and CPU time per context (share of all CPUs' traced time).
ReportDiff DiffReports(const Report& before, const Report& after);

/// Regressed rows whose relative change exceeds `percent` (a regression from 0 always does).
int CountRegressions(const ReportDiff& diff, double percent);

/// For people: a table with units, the change absolute and relative, and the verdict.
std::string DiffToText(const ReportDiff& diff);

/// The "napiscope.diff/1" object (docs/report-schema.md); ns and counts as integers.
nlohmann::json DiffToJson(const ReportDiff& diff);

/// Markdown for a pull-request comment: the rows that changed, marked.
std::string DiffToMarkdown(const ReportDiff& diff);

}  // namespace napiscope
