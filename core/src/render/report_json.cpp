// "napiscope.report/1": see docs/report-schema.md. The report describes the events, not the
// file: the same events loaded from trace.dat or from text give the same JSON but trace.path.
#include <fmt/format.h>

#include "napiscope/info_report.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_render.h"
#include "render/napi_rt_render.h"
#include "render/net_path_render.h"
#include "render/scheduling_render.h"

namespace napiscope {
namespace {

using nlohmann::json;

json OptionalTime(TimestampNs ts_ns, TimestampNs unbounded) {
  return ts_ns == unbounded ? json(nullptr) : json(ts_ns);
}

json TraceJson(const Report& report) {
  const TraceSummary& s = report.trace;
  json missed = MissedEventsJson(s.missed);
  return {{"path", s.meta.path},
          {"cpus", s.meta.cpus},
          {"events", s.events},
          {"first_ts_ns", s.first_ts_ns},
          {"last_ts_ns", s.last_ts_ns},
          {"span_ns", s.last_ts_ns - s.first_ts_ns},
          {"missed_events", missed},
          {"missed_events_per_cpu", MissedPerCpuJson(s.missed_per_cpu)},
          {"skipped_records", s.meta.skipped_records},
          {"skipped_lines", s.meta.skipped_lines},
          {"warnings", s.meta.warnings}};
}

json AnalysesJson(const Report& report) {
  json analyses = json::array();
  for (const AnalysisAvailability& a : report.trace.analyses) {
    analyses.push_back({{"id", a.id},
                        {"title", a.title},
                        {"available", a.available},
                        {"missing_required", a.missing_required},
                        {"missing_optional", a.missing_optional}});
  }
  return analyses;
}

// A target id of a finding, null when it has none (-1).
json OrNull(int32_t id) { return id < 0 ? json(nullptr) : json(id); }

json FindingsJson(const Report& report) {
  json findings = json::array();
  for (const Finding& f : report.findings) {
    findings.push_back({{"rule", f.rule},
                        {"severity", std::string(SeverityName(f.severity))},
                        {"summary", f.summary},
                        {"cpu", OrNull(f.cpu)},
                        {"start_ns", f.start_ns},
                        {"end_ns", f.end_ns},
                        {"pid", OrNull(f.pid)},
                        {"irq", OrNull(f.irq.number)},
                        {"x86_vector", f.irq.x86_vector},
                        {"vec", OrNull(f.vec)},
                        {"other_pids", f.other_pids},
                        {"other_cpus", f.other_cpus},
                        {"evidence", f.evidence}});
  }
  return findings;
}

json SoftirqLatencyJson(const Report& report) {
  json rows = json::array();
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    json out = {{"cpu", row.cpu}, {"vec", row.vec}, {"name", VectorLabel(row.vec)}};
    internal::AddStatsJson(row.delay, out);
    out["dropped_pairs"] = row.dropped_pairs;
    out["entries_without_raise"] = row.entries_without_raise;
    json ran_in = json::object();
    for (const auto& [site, count] : row.ran_in) ran_in[std::string(SoftirqSiteName(site))] = count;
    out["ran_in"] = ran_in;
    json worst = json::array();
    for (const SoftirqWait& wait : row.worst) {
      json blame = json::array();
      for (const BlameItem& item : wait.blame) blame.push_back(internal::BlameItemJson(item));
      worst.push_back({{"raise_ns", wait.raise_ns},
                       {"entry_ns", wait.entry_ns},
                       {"delay_ns", wait.delay_ns},
                       {"ran_in", std::string(SoftirqSiteName(wait.ran_in))},
                       {"unknown_ns", wait.unknown_ns},
                       {"blame", blame}});
    }
    out["worst"] = worst;
    rows.push_back(out);
  }
  return rows;
}

json SoftirqRuntimeJson(const Report& report) {
  json rows = json::array();
  for (const SoftirqRuntimeRow& row : report.softirq_runtime) {
    json out = {{"cpu", row.cpu}, {"vec", row.vec}, {"name", VectorLabel(row.vec)}};
    internal::AddStatsJson(row.run, out);
    out["preempted_runs"] = row.preempted_runs;
    rows.push_back(out);
  }
  return rows;
}

json HardirqRuntimeJson(const Report& report) {
  json rows = json::array();
  for (const HardirqRuntimeRow& row : report.hardirq_runtime) {
    json out = {{"cpu", row.cpu},
                {"irq", row.irq.number},
                {"x86_vector", row.irq.x86_vector},
                {"name", row.name}};
    internal::AddStatsJson(row.run, out);
    rows.push_back(out);
  }
  return rows;
}

json CpuTimeJson(const Report& report) {
  json rows = json::array();
  for (const CpuTimeRow& row : report.cpu_time) {
    json softirq = json::object();
    for (size_t vec = 0; vec < row.softirq_ns.size(); ++vec) {
      softirq[VectorLabel(static_cast<uint32_t>(vec))] = row.softirq_ns[vec];
    }
    rows.push_back({{"cpu", row.cpu},
                    {"first_ts_ns", row.first_ts_ns},
                    {"last_ts_ns", row.last_ts_ns},
                    {"span_ns", row.span_ns},
                    {"unknown_ns", row.unknown_ns},
                    {"idle_ns", row.idle_ns},
                    {"hardirq_ns", row.hardirq_ns},
                    {"softirq_ns", softirq},
                    {"irq_thread_ns", row.irq_thread_ns},
                    {"ksoftirqd_ns", row.ksoftirqd_ns},
                    {"napi_kthread_ns", row.napi_kthread_ns},
                    {"rt_task_ns", row.rt_task_ns},
                    {"other_task_ns", row.other_task_ns}});
  }
  return rows;
}

}  // namespace

json ReportToJson(const Report& report) {
  constexpr TimestampNs kMin = std::numeric_limits<TimestampNs>::min();
  constexpr TimestampNs kMax = std::numeric_limits<TimestampNs>::max();
  json out = {
      {"schema", "napiscope.report/1"},
      {"trace", TraceJson(report)},
      {"window",
       {{"from_ns", OptionalTime(report.window.from_ns, kMin)},
        {"to_ns", OptionalTime(report.window.to_ns, kMax)}}},
      {"cpus", report.cpus},
      {"analyses", AnalysesJson(report)},
      {"anomalies",
       {{"unmatched_exits", report.anomalies.unmatched_exits},
        {"frames_closed_by_switch", report.anomalies.frames_closed_by_switch},
        {"missing_switches", report.anomalies.missing_switches}}},
      {"findings", FindingsJson(report)},
      {"softirq_latency", SoftirqLatencyJson(report)},
      {"softirq_runtime", SoftirqRuntimeJson(report)},
      {"hardirq_runtime", HardirqRuntimeJson(report)},
      {"cpu_time", CpuTimeJson(report)},
  };
  internal::AddSchedulingJson(report, out);
  internal::AddNapiRtJson(report, out);
  internal::AddNetPathJson(report, out);
  return out;
}

}  // namespace napiscope
