#include "napiscope/report_diff.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "report/describe.h"

namespace napiscope {
namespace {

// The metrics compared, in output order; a new metric is one line here plus its extraction
// in CollectMetrics.
struct MetricInfo {
  std::string_view id;
  std::string_view label;
  MetricUnit unit;
  MetricDirection direction;
};

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
    {"softirq_latency_p50_ns", "softirq latency p50", MetricUnit::kNs, kLower},
    {"softirq_latency_p99_ns", "softirq latency p99", MetricUnit::kNs, kLower},
    {"softirq_latency_max_ns", "softirq latency max", MetricUnit::kNs, kLower},
    {"irq_thread_cross_cpu_share", "IRQ-thread cross-CPU share", MetricUnit::kShare, kLower},
    {"irq_thread_migrations", "IRQ-thread migrations", MetricUnit::kCount, kLower},
    {"napi_thread_cross_cpu_share", "NAPI-thread cross-CPU share", MetricUnit::kShare, kLower},
    {"napi_thread_migrations", "NAPI-thread migrations", MetricUnit::kCount, kLower},
    {"napi_exhausted_share", "NAPI polls with budget exhausted", MetricUnit::kShare, kLower},
    {"rt_wake_latency_p99_ns", "RT wake latency p99", MetricUnit::kNs, kLower},
    {"rt_wake_latency_max_ns", "RT wake latency max", MetricUnit::kNs, kLower},
    {"cpu_time_share", "CPU time share", MetricUnit::kShare, kNeutral},
};

// Rows sort by metric, then by this key, then by subject.
using SortKey = std::tuple<int, int64_t, std::string>;

struct Sample {
  SortKey key;
  double value = 0;
};

using Samples = std::map<SortKey, double>;

void AddThreads(const std::vector<ThreadActivityRow>& rows, MetricIndex share,
                MetricIndex migrations, Samples* out) {
  for (const ThreadActivityRow& row : rows) {
    (*out)[{share, row.irq, row.comm}] = row.CrossCpuShare();
    (*out)[{migrations, row.irq, row.comm}] = static_cast<double>(row.migrations);
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
    (*out)[{kNapiExhaustedShare, 0, dev}] =
        static_cast<double>(counts.first) / static_cast<double>(counts.second);
  }
}

// Per RT thread by comm and CPU (pids differ between runs); the worst when comms repeat.
void AddRtWakeLatency(const std::vector<WakeLatencyRow>& rows, Samples* out) {
  for (const WakeLatencyRow& row : rows) {
    if (row.policy != SchedPolicyClass::kRealtime || row.latency.count == 0) continue;
    std::string subject = fmt::format("{} CPU{}", row.comm, row.cpu);
    for (auto [metric, value] : {std::pair{kRtWakeLatencyP99, row.latency.p99_ns},
                                 std::pair{kRtWakeLatencyMax, row.latency.max_ns}}) {
      double& kept = (*out)[{metric, row.cpu, subject}];
      kept = std::max(kept, static_cast<double>(value));
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
      add("softirq " + internal::VectorLabel(static_cast<uint32_t>(vec)), row.softirq_ns[vec]);
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
    (*out)[{kCpuTimeShare, order++, name}] = static_cast<double>(ns) / static_cast<double>(span_ns);
  }
}

Samples CollectMetrics(const Report& report) {
  Samples out;
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    if (row.delay.count == 0) continue;
    int64_t order = int64_t{row.cpu} * 64 + row.vec;
    std::string subject = fmt::format("CPU{} {}", row.cpu, internal::VectorLabel(row.vec));
    out[{kLatencyP50, order, subject}] = static_cast<double>(row.delay.p50_ns);
    out[{kLatencyP99, order, subject}] = static_cast<double>(row.delay.p99_ns);
    out[{kLatencyMax, order, subject}] = static_cast<double>(row.delay.max_ns);
  }
  AddThreads(report.irq_threads, kIrqThreadCrossShare, kIrqThreadMigrations, &out);
  AddThreads(report.napi_threads, kNapiThreadCrossShare, kNapiThreadMigrations, &out);
  AddNapi(report.napi, &out);
  AddRtWakeLatency(report.rt_wake_latency, &out);
  AddCpuTime(report.cpu_time, &out);
  return out;
}

ChangeVerdict Judge(const DiffRow& row) {
  if (!row.before) return ChangeVerdict::kOnlyAfter;
  if (!row.after) return ChangeVerdict::kOnlyBefore;
  if (*row.before == *row.after) return ChangeVerdict::kSame;
  if (row.direction == MetricDirection::kNeutral) return ChangeVerdict::kChanged;
  return *row.after < *row.before ? ChangeVerdict::kImproved : ChangeVerdict::kRegressed;
}

}  // namespace

std::string_view ChangeVerdictName(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kSame: return "same";
    case ChangeVerdict::kImproved: return "improved";
    case ChangeVerdict::kRegressed: return "regressed";
    case ChangeVerdict::kChanged: return "changed";
    case ChangeVerdict::kOnlyBefore: return "only_before";
    case ChangeVerdict::kOnlyAfter: return "only_after";
  }
  return "";
}

double DiffRow::Change() const { return before && after ? *after - *before : 0; }

std::optional<double> DiffRow::RelativeChange() const {
  if (!before || !after) return std::nullopt;
  if (*before == 0) return *after == 0 ? std::optional<double>(0) : std::nullopt;
  return (*after - *before) / *before;
}

ReportDiff DiffReports(const Report& before, const Report& after) {
  ReportDiff diff;
  diff.before_path = before.trace.meta.path;
  diff.after_path = after.trace.meta.path;
  std::map<SortKey, DiffRow> rows;
  auto merge = [&rows](const Samples& samples, bool is_before) {
    for (const auto& [key, value] : samples) {
      DiffRow& row = rows[key];
      const MetricInfo& info = kMetrics[std::get<0>(key)];
      row.metric = info.id;
      row.label = info.label;
      row.subject = std::get<2>(key);
      row.unit = info.unit;
      row.direction = info.direction;
      (is_before ? row.before : row.after) = value;
    }
  };
  merge(CollectMetrics(before), true);
  merge(CollectMetrics(after), false);
  for (auto& [key, row] : rows) {
    bool zero_both = row.before == 0.0 && row.after == 0.0;
    if (zero_both && row.direction == MetricDirection::kNeutral) continue;  // no such time
    row.verdict = Judge(row);
    diff.rows.push_back(std::move(row));
  }
  return diff;
}

int CountRegressions(const ReportDiff& diff, double percent) {
  int count = 0;
  for (const DiffRow& row : diff.rows) {
    if (row.verdict != ChangeVerdict::kRegressed) continue;
    std::optional<double> relative = row.RelativeChange();
    count += !relative || *relative * 100 > percent;
  }
  return count;
}

}  // namespace napiscope
