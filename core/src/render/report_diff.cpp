#include "napiscope/report_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "napiscope/check_render.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/diff_significance.h"

namespace napiscope {
namespace {

// The metrics compared, in output order; a new metric is one line here plus its extraction
// in CollectMetrics.
struct MetricInfo {
  std::string_view id;
  std::string_view label;
  MetricUnit unit;
  MetricDirection direction;
  internal::Statistic statistic;  // what its confidence interval is of
};

using internal::Statistic;

constexpr MetricDirection kLower = MetricDirection::kLowerIsBetter;
constexpr MetricDirection kNeutral = MetricDirection::kNeutral;

enum MetricIndex : int {
  kLatencyP50,
  kLatencyP99,
  kLatencyMax,
  kIrqThreadCrossShare,
  kIrqThreadMigrations,
  kNapiThreadCrossShare,
  kNapiThreadMigrations,
  kNapiExhaustedShare,
  kRtWakeLatencyP99,
  kRtWakeLatencyMax,
  kCpuTimeShare,
};

constexpr MetricInfo kMetrics[] = {
    {"softirq_latency_p50_ns", "softirq latency p50", MetricUnit::kNs, kLower, Statistic::kP50},
    {"softirq_latency_p99_ns", "softirq latency p99", MetricUnit::kNs, kLower, Statistic::kP99},
    {"softirq_latency_max_ns", "softirq latency max", MetricUnit::kNs, kLower, Statistic::kMax},
    {"irq_thread_cross_cpu_share", "IRQ-thread cross-CPU share", MetricUnit::kShare, kLower,
     Statistic::kShare},
    {"irq_thread_migrations", "IRQ-thread migrations", MetricUnit::kCount, kLower,
     Statistic::kCount},
    {"napi_thread_cross_cpu_share", "NAPI-thread cross-CPU share", MetricUnit::kShare, kLower,
     Statistic::kShare},
    {"napi_thread_migrations", "NAPI-thread migrations", MetricUnit::kCount, kLower,
     Statistic::kCount},
    {"napi_exhausted_share", "NAPI polls with budget exhausted", MetricUnit::kShare, kLower,
     Statistic::kShare},
    {"rt_wake_latency_p99_ns", "RT wake latency p99", MetricUnit::kNs, kLower, Statistic::kP99},
    {"rt_wake_latency_max_ns", "RT wake latency max", MetricUnit::kNs, kLower, Statistic::kMax},
    {"cpu_time_share", "CPU time share", MetricUnit::kShare, kNeutral, Statistic::kShare},
};

// Rows sort by metric, then by this key, then by subject.
using SortKey = std::tuple<int, int64_t, std::string>;

using Value = internal::Side;

using Samples = std::map<SortKey, Value>;

void AddThreads(const std::vector<ThreadActivityRow>& rows, MetricIndex share,
                MetricIndex migrations, Samples* out) {
  for (const ThreadActivityRow& row : rows) {
    (*out)[{share, row.irq, row.comm}] = {row.CrossCpuShare(), row.activations, std::nullopt};
    (*out)[{migrations, row.irq, row.comm}] = {static_cast<double>(row.migrations), -1,
                                               std::nullopt};
  }
}

// Per NAPI device (instances are addresses, which differ between boots): exhausted share.
void AddNapi(const std::vector<NapiRow>& rows, Samples* out) {
  std::map<std::string, std::pair<int64_t, int64_t>> by_dev;  // dev -> (exhausted, polls)
  for (const NapiRow& row : rows) {
    by_dev[row.dev].first += row.exhausted;
    by_dev[row.dev].second += row.polls;
  }
  for (const auto& [dev, counts] : by_dev) {
    if (counts.second == 0) continue;
    (*out)[{kNapiExhaustedShare, 0, dev}] = {
        static_cast<double>(counts.first) / static_cast<double>(counts.second), counts.second,
        std::nullopt};
  }
}

// Per RT thread by comm and CPU (pids differ between runs); the worst when comms repeat.
void AddRtWakeLatency(const std::vector<WakeLatencyRow>& rows, Samples* out) {
  for (const WakeLatencyRow& row : rows) {
    if (row.policy != SchedPolicyClass::kRealtime || row.latency.count == 0) continue;
    std::string subject = fmt::format("{} CPU{}", row.comm, row.cpu);
    for (auto [metric, value] : {std::pair{kRtWakeLatencyP99, row.latency.p99_ns},
                                 std::pair{kRtWakeLatencyMax, row.latency.max_ns}}) {
      Value& kept = (*out)[{metric, row.cpu, subject}];
      if (static_cast<double>(value) >= kept.value) {
        kept = {static_cast<double>(value), row.latency.count, row.latency};
      }
    }
  }
}

void AddCpuTime(const std::vector<CpuTimeRow>& rows, Samples* out) {
  int64_t span_ns = 0;
  std::vector<std::pair<std::string, int64_t>> parts;
  auto add = [&parts](const std::string& name, int64_t ns) {
    auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == name; });
    if (it == parts.end()) parts.emplace_back(name, ns);
    else it->second += ns;
  };
  for (const CpuTimeRow& row : rows) {
    span_ns += row.span_ns;
    add("idle", row.idle_ns);
    add("hard IRQs", row.hardirq_ns);
    for (size_t vec = 0; vec < row.softirq_ns.size(); ++vec) {
      add("softirq " + VectorLabel(static_cast<uint32_t>(vec)), row.softirq_ns[vec]);
    }
    add("IRQ threads", row.irq_thread_ns);
    add("ksoftirqd", row.ksoftirqd_ns);
    add("NAPI threads", row.napi_kthread_ns);
    add("RT tasks", row.rt_task_ns);
    add("other tasks", row.other_task_ns);
    add("unknown", row.unknown_ns);
  }
  if (span_ns <= 0) return;
  int64_t order = 0;
  for (const auto& [name, ns] : parts) {
    (*out)[{kCpuTimeShare, order++, name}] = {static_cast<double>(ns) / static_cast<double>(span_ns),
                                              -1, std::nullopt};
  }
}

Samples CollectMetrics(const Report& report) {
  Samples out;
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    if (row.delay.count == 0) continue;
    int64_t order = int64_t{row.cpu} * 64 + row.vec;
    std::string subject = fmt::format("CPU{} {}", row.cpu, VectorLabel(row.vec));
    for (auto [metric, value] : {std::pair{kLatencyP50, row.delay.p50_ns},
                                 std::pair{kLatencyP99, row.delay.p99_ns},
                                 std::pair{kLatencyMax, row.delay.max_ns}}) {
      out[{metric, order, subject}] = {static_cast<double>(value), row.delay.count, row.delay};
    }
  }
  AddThreads(report.irq_threads, kIrqThreadCrossShare, kIrqThreadMigrations, &out);
  AddThreads(report.napi_threads, kNapiThreadCrossShare, kNapiThreadMigrations, &out);
  AddNapi(report.napi, &out);
  AddRtWakeLatency(report.rt_wake_latency, &out);
  AddCpuTime(report.cpu_time, &out);
  return out;
}

// `resolution_ns`: the coarser step of the two traces' timestamps; durations closer than it
// are the same as far as the traces can tell.
// `noise_percent`: a judged change of at most that share of the before value is noise.
// Sets row->significant when the change is judged by its samples.
ChangeVerdict Judge(DiffRow* row_out, Statistic statistic, const Value& before,
                    const Value& after, int64_t resolution_ns, double noise_percent) {
  const DiffRow& row = *row_out;
  if (!row.before) return ChangeVerdict::kOnlyAfter;
  if (!row.after) return ChangeVerdict::kOnlyBefore;
  if (*row.before == *row.after) return ChangeVerdict::kSame;
  if (row.unit == MetricUnit::kNs &&
      std::abs(*row.after - *row.before) < static_cast<double>(resolution_ns)) {
    return ChangeVerdict::kSame;
  }
  int64_t needed = MinSamples(row.metric);
  if (needed > 0 && (row.before_samples < needed || row.after_samples < needed)) {
    return ChangeVerdict::kFewSamples;
  }
  if (row.direction == MetricDirection::kNeutral) return ChangeVerdict::kChanged;
  row_out->significant = internal::Significant(statistic, before, after);
  if (row.significant == false) return ChangeVerdict::kNotSignificant;
  std::optional<double> percent = row.ChangePercent();
  if (percent && std::abs(*percent) <= noise_percent) return ChangeVerdict::kWithinNoise;
  return *row.after < *row.before ? ChangeVerdict::kImproved : ChangeVerdict::kRegressed;
}

// Findings match by rule and CPU; the most severe of each side counts.
std::vector<FindingDiff> DiffFindings(const std::vector<Finding>& before,
                                      const std::vector<Finding>& after) {
  using Key = std::pair<std::string, int>;
  auto worst = [](const std::vector<Finding>& findings) {
    std::map<Key, const Finding*> out;
    for (const Finding& f : findings) {
      const Finding*& kept = out[{f.rule, f.cpu}];
      if (kept == nullptr || f.severity > kept->severity) kept = &f;
    }
    return out;
  };
  std::map<Key, const Finding*> old_findings = worst(before), new_findings = worst(after);
  std::vector<FindingDiff> out;
  auto add = [&out](FindingChange change, const Finding& f) {
    out.push_back({change, f.rule, f.cpu, f.severity, f.summary});
  };
  for (const auto& [key, f] : new_findings) {
    auto it = old_findings.find(key);
    if (it == old_findings.end()) add(FindingChange::kNew, *f);
  }
  for (const auto& [key, f] : new_findings) {
    auto it = old_findings.find(key);
    if (it != old_findings.end() && f->severity > it->second->severity) add(FindingChange::kWorse, *f);
  }
  for (const auto& [key, f] : new_findings) {
    auto it = old_findings.find(key);
    if (it != old_findings.end() && f->severity < it->second->severity) add(FindingChange::kBetter, *f);
  }
  for (const auto& [key, f] : old_findings) {
    if (!new_findings.contains(key)) add(FindingChange::kGone, *f);
  }
  return out;
}

// The largest share of one CPU's span lost to missed events, and that CPU.
std::pair<double, int> WorstLostShare(const Report& report) {
  std::pair<double, int> worst = {0.0, -1};
  for (const CpuMissedSummary& missed : report.trace.missed_per_cpu) {
    for (const CpuTimeRow& row : report.cpu_time) {
      if (row.cpu != missed.cpu || row.span_ns <= 0) continue;
      // Of the time the CPU would have covered: a loss before its first event precedes its span.
      double share = static_cast<double>(missed.lost_ns) /
                     static_cast<double>(missed.lost_ns + row.span_ns);
      if (share > worst.first) worst = {share, row.cpu};
    }
  }
  return worst;
}

// The analyses `other` ran that `lacking` could not (its recording lacked their events), as
// one sentence; "" when there are none. Their rows are in one trace only because of what was
// recorded, which the rows' "new" or "gone" alone would hide.
std::string UnrecordedAnalysesWarning(std::string_view side, std::string_view other_side,
                                      const Report& lacking, const Report& other) {
  std::vector<std::string> titles, events;
  for (const AnalysisAvailability& analysis : lacking.trace.analyses) {
    const AnalysisAvailability* ran = other.Availability(analysis.id);
    if (analysis.available || ran == nullptr || !ran->available) continue;
    titles.push_back(analysis.title);
    for (const std::string& event : analysis.missing_required) {
      if (std::find(events.begin(), events.end(), event) == events.end()) events.push_back(event);
    }
  }
  if (titles.empty()) return "";
  return fmt::format(
      "the {} trace has no {} events, so these did not run on it: {}; their rows are in the "
      "{} trace only because of the recording, not because nothing happened",
      side, fmt::join(events, ", "), fmt::join(titles, "; "), other_side);
}

std::vector<std::string> ComparabilityWarnings(const Report& before, const Report& after) {
  std::vector<std::string> out;
  // The loader's own first: a trace that lost records makes every number of its side less sure.
  for (const auto& [side, report] : {std::pair{"before", &before}, std::pair{"after", &after}}) {
    for (const std::string& warning : LoaderDataWarnings(report->trace.meta)) {
      out.push_back(fmt::format("the {} trace's loader warned: {}", side, warning));
    }
  }
  if (before.trace.meta.cpus != after.trace.meta.cpus) {
    out.push_back(fmt::format("the traces have different CPU counts ({} before, {} after): "
                              "per-CPU rows and shares of all CPUs do not compare one to one",
                              before.trace.meta.cpus, after.trace.meta.cpus));
  }
  const std::string& old_kernel = before.trace.meta.kernel_release;
  const std::string& new_kernel = after.trace.meta.kernel_release;
  if (!old_kernel.empty() && !new_kernel.empty() && old_kernel != new_kernel) {
    out.push_back(fmt::format("the kernels differ ({} before, {} after)", old_kernel, new_kernel));
  }
  for (const auto& [side, report] : {std::pair{"before", &before}, std::pair{"after", &after}}) {
    int64_t resolution_ns = report->trace.meta.time_resolution_ns;
    if (resolution_ns > 1) {
      out.push_back(
          fmt::format("the {} trace's times are printed to {}: durations that differ "
                      "by less count as unchanged",
                      side, FormatDuration(resolution_ns)));
    }
  }
  auto [old_share, old_cpu] = WorstLostShare(before);
  auto [new_share, new_cpu] = WorstLostShare(after);
  constexpr double kLostShareGap = 0.05;  // 5 points of a CPU's span
  if (std::abs(new_share - old_share) >= kLostShareGap) {
    auto side = [](double share, int cpu) {
      return cpu < 0 ? std::string("none")
                     : fmt::format("up to {:.0f}% of CPU{}'s time", share * 100, cpu);
    };
    out.push_back(fmt::format(
        "the traces lost different shares of events (before: {}; after: {}): waits across a "
        "loss are dropped, so the numbers of the lossier trace are less complete",
        side(old_share, old_cpu), side(new_share, new_cpu)));
  }
  for (const auto& [side, other_side, lacking, other] :
       {std::tuple{"before", "after", &before, &after},
        std::tuple{"after", "before", &after, &before}}) {
    std::string warning = UnrecordedAnalysesWarning(side, other_side, *lacking, *other);
    if (!warning.empty()) out.push_back(std::move(warning));
  }
  return out;
}

}  // namespace

int64_t MinSamples(std::string_view metric) {
  if (metric.find("p99") != std::string_view::npos) return 100;
  if (metric.find("p50") != std::string_view::npos) return 20;
  return 0;
}

std::string_view FindingChangeName(FindingChange change) {
  switch (change) {
    case FindingChange::kNew: return "new";
    case FindingChange::kGone: return "gone";
    case FindingChange::kWorse: return "worse";
    case FindingChange::kBetter: return "better";
  }
  return "";
}

DiffCounts CountVerdicts(const ReportDiff& diff) {
  DiffCounts counts;
  for (const DiffRow& row : diff.rows) {
    switch (row.verdict) {
      case ChangeVerdict::kRegressed: ++counts.regressed; break;
      case ChangeVerdict::kImproved: ++counts.improved; break;
      case ChangeVerdict::kWithinNoise:
        ++counts.within_noise;
        [[fallthrough]];
      case ChangeVerdict::kSame:
      case ChangeVerdict::kChanged: ++counts.unchanged; break;
      case ChangeVerdict::kFewSamples: ++counts.few_samples; break;
      case ChangeVerdict::kNotSignificant: ++counts.not_significant; break;
      case ChangeVerdict::kOnlyBefore:
      case ChangeVerdict::kOnlyAfter: ++counts.only_one_side; break;
    }
  }
  return counts;
}

std::vector<const DiffRow*> RowsByImportance(const ReportDiff& diff) {
  auto group = [](ChangeVerdict verdict) {
    switch (verdict) {
      case ChangeVerdict::kRegressed:
      case ChangeVerdict::kImproved: return 0;
      case ChangeVerdict::kOnlyAfter:
      case ChangeVerdict::kOnlyBefore: return 1;
      case ChangeVerdict::kChanged: return 2;
      case ChangeVerdict::kWithinNoise: return 3;
      case ChangeVerdict::kNotSignificant: return 4;
      case ChangeVerdict::kFewSamples: return 5;
      case ChangeVerdict::kSame: return 6;
    }
    return 7;
  };
  // The size of the change as the row shows it (points for a share); a rise from 0 is the
  // largest. Significance, not a weight, says which changes the samples support.
  auto weight = [](const DiffRow& row) {
    std::optional<double> percent = row.ChangePercent();
    return percent ? std::abs(*percent) : (row.before && row.after ? 1e18 : 0);
  };
  std::vector<const DiffRow*> rows;
  for (const DiffRow& row : diff.rows) rows.push_back(&row);
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow* a, const DiffRow* b) {
    if (group(a->verdict) != group(b->verdict)) return group(a->verdict) < group(b->verdict);
    return weight(*a) > weight(*b);
  });
  return rows;
}

std::string_view ChangeVerdictName(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kSame: return "same";
    case ChangeVerdict::kImproved: return "improved";
    case ChangeVerdict::kRegressed: return "regressed";
    case ChangeVerdict::kChanged: return "changed";
    case ChangeVerdict::kOnlyBefore: return "only_before";
    case ChangeVerdict::kOnlyAfter: return "only_after";
    case ChangeVerdict::kFewSamples: return "few_samples";
    case ChangeVerdict::kWithinNoise:
      return "within_noise";
    case ChangeVerdict::kNotSignificant: return "not_significant";
  }
  return "";
}

double DiffRow::Change() const { return before && after ? *after - *before : 0; }

std::optional<double> DiffRow::RelativeChange() const {
  if (!before || !after) return std::nullopt;
  if (*before == 0) return *after == 0 ? std::optional<double>(0) : std::nullopt;
  return (*after - *before) / *before;
}

std::optional<double> DiffRow::ChangePercent() const {
  if (unit == MetricUnit::kShare && before && after) return Change() * 100;
  std::optional<double> relative = RelativeChange();
  if (!relative) return std::nullopt;
  return *relative * 100;
}

bool DiffRow::MovedWorse() const {
  return verdict == ChangeVerdict::kRegressed ||
         (verdict == ChangeVerdict::kWithinNoise && *after > *before);
}

ReportDiff DiffReports(const Report& before, const Report& after, double noise_percent) {
  ReportDiff diff;
  diff.noise_percent = noise_percent;
  diff.before_path = before.trace.meta.path;
  diff.after_path = after.trace.meta.path;
  struct Compared {
    DiffRow row;
    Value before, after;
  };
  std::map<SortKey, Compared> rows;
  auto merge = [&rows](const Samples& samples, bool is_before) {
    for (const auto& [key, value] : samples) {
      Compared& compared = rows[key];
      (is_before ? compared.before : compared.after) = value;
      DiffRow& row = compared.row;
      const MetricInfo& info = kMetrics[std::get<0>(key)];
      row.metric = info.id;
      row.label = info.label;
      row.subject = std::get<2>(key);
      row.unit = info.unit;
      row.direction = info.direction;
      (is_before ? row.before : row.after) = value.value;
      (is_before ? row.before_samples : row.after_samples) = value.samples;
    }
  };
  merge(CollectMetrics(before), true);
  merge(CollectMetrics(after), false);
  int64_t resolution_ns =
      std::max(before.trace.meta.time_resolution_ns, after.trace.meta.time_resolution_ns);
  for (auto& [key, compared] : rows) {
    DiffRow& row = compared.row;
    bool zero_both = row.before == 0.0 && row.after == 0.0;
    if (zero_both && row.direction == MetricDirection::kNeutral) continue;  // no such time
    row.verdict = Judge(&row, kMetrics[std::get<0>(key)].statistic, compared.before,
                        compared.after, resolution_ns, noise_percent);
    diff.rows.push_back(std::move(row));
  }
  diff.findings = DiffFindings(before.findings, after.findings);
  diff.warnings = ComparabilityWarnings(before, after);
  return diff;
}

int CountRegressions(const ReportDiff& diff, double percent) {
  int count = 0;
  for (const DiffRow& row : diff.rows) {
    if (!row.MovedWorse()) continue;
    std::optional<double> change = row.ChangePercent();
    count += !change || *change > percent;
  }
  return count;
}

}  // namespace napiscope
