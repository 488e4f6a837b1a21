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
  kSame,         ///< equal
  kImproved,     ///< moved the better way
  kRegressed,    ///< moved the worse way
  kChanged,      ///< a neutral metric moved
  kOnlyBefore,   ///< the subject is gone in the after trace
  kOnlyAfter,    ///< the subject is new in the after trace
  kFewSamples,   ///< a percentile over fewer samples than MinSamples: not judged
  kWithinNoise,  ///< moved by at most the diff's noise percent either way: counted unchanged
  kNotSignificant,  ///< moved by less than the samples behind it can tell (95%): not judged
};

/// Stable name of a verdict ("same", "improved", "regressed", "changed", "only_before",
/// "only_after", "few_samples", "within_noise", "not_significant").
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
  int64_t before_samples = -1;  ///< samples behind `before` (waits, polls...); -1: not a sample
  int64_t after_samples = -1;   ///< samples behind `after`; -1: not a sample statistic
  /// Whether the change is beyond what the samples behind the values explain (95% confidence
  /// intervals that do not overlap); absent when not judged (same, one side, few samples,
  /// neutral).
  std::optional<bool> significant;

  /// after - before (0 when one side is absent).
  double Change() const;
  /// (after - before) / before; absent when a side is absent or before is 0 and after is not.
  std::optional<double> RelativeChange() const;
  /// The change the noise band and --fail-on-regression compare: percentage points for a share
  /// (0.1% -> 0.3% is +0.2), else percent of before; absent as RelativeChange is.
  std::optional<double> ChangePercent() const;
  /// Judged, significant and moved the worse way: regressed, or within the noise and higher.
  bool MovedWorse() const;
};

/// The noise percent `DiffReports` uses unless told: two recordings of one workload move
/// percentiles by a few percent.
inline constexpr double kDefaultNoisePercent = 5;

/// Samples both sides need before a metric is judged: 100 for a p99, 20 for a p50, 0 for the
/// others (a max, a share, a count).
int64_t MinSamples(std::string_view metric);

/// How a finding (a rule on a CPU) changed from before to after.
enum class FindingChange : uint8_t {
  kNew,     ///< only the after trace has it
  kGone,    ///< only the before trace has it
  kWorse,   ///< both have it; after's severity is higher
  kBetter,  ///< both have it; after's severity is lower
};

/// Stable name of a finding change ("new", "gone", "worse", "better").
std::string_view FindingChangeName(FindingChange change);

/// A finding that is new, gone or of another severity in the after trace.
struct FindingDiff {
  FindingChange change = FindingChange::kNew;
  std::string rule;
  int cpu = -1;                            ///< as Finding::cpu
  Severity severity = Severity::kInfo;     ///< after's (before's when gone)
  std::string summary;                     ///< after's sentence (before's when gone)
};

/// Row verdicts counted, for the first line of the text.
struct DiffCounts {
  int regressed = 0;
  int improved = 0;
  int unchanged = 0;     ///< same, within the noise, or neutral metrics that changed
  int within_noise = 0;  ///< of `unchanged`, those that moved by at most the noise percent
  int few_samples = 0;  ///< not judged
  int not_significant = 0;  ///< moved by less than their samples can tell
  int only_one_side = 0;
};

/// The comparison of two reports.
struct ReportDiff {
  std::string before_path;    ///< the before trace as given
  std::string after_path;     ///< the after trace as given
  std::vector<DiffRow> rows;  ///< by metric, then subject
  std::vector<FindingDiff> findings;  ///< new, then worse, then better, then gone
  std::vector<std::string> warnings;  ///< why the traces may not compare (loader warnings, CPUs, kernel, losses)
  double noise_percent = kDefaultNoisePercent;  ///< changes of at most this are within noise
};

/// Counts the verdicts of `diff.rows`.
DiffCounts CountVerdicts(const ReportDiff& diff);

/// Rows in the order people read them, most changed first: regressed and improved together by
/// the size of ChangePercent (a rise from 0 first), then one side only, neutral changes, within
/// the noise, not significant, few samples, same; each group by the size of its change.
std::vector<const DiffRow*> RowsByImportance(const ReportDiff& diff);

/// Compares softirq latency per (cpu, vec) p50/p99/max, IRQ- and NAPI-thread cross-CPU share
/// and migrations, and CPU time per context (share of all CPUs' traced time); a change its
/// samples cannot tell from chance is kNotSignificant, a judged change of at most
/// `noise_percent` (of the before value; points for a share) kWithinNoise (0: none).
ReportDiff DiffReports(const Report& before, const Report& after,
                       double noise_percent = kDefaultNoisePercent);

/// Rows that moved the worse way (DiffRow::MovedWorse) by more than `percent` of ChangePercent
/// (a rise from 0 always does), whatever the diff's noise percent; with 0, every row that moved
/// the worse way. Not significant changes never count.
int CountRegressions(const ReportDiff& diff, double percent);

/// For people: a table with units, the change absolute and relative, and the verdict; sentences
/// wrapped at `width` columns (0: never), and each metric on two lines when a row of the table
/// is wider than that.
std::string DiffToText(const ReportDiff& diff, size_t width = 120);

/// The "napiscope.diff/1" object (docs/report-schema.md); ns and counts as integers.
nlohmann::json DiffToJson(const ReportDiff& diff);

/// Markdown for a pull-request comment: the rows that changed, marked.
std::string DiffToMarkdown(const ReportDiff& diff);

}  // namespace napiscope
