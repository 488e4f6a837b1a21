#include "napiscope/info_report.h"

#include <fmt/format.h>

#include "napiscope/format.h"

namespace napiscope {

std::string DescribeMissed(const CpuMissedSummary& row, int64_t span_ns) {
  if (row.gaps == 0) return "none";
  std::string events = row.some_unknown
                           ? (row.events > 0 ? fmt::format("at least {} events", row.events)
                                             : std::string("count unknown"))
                           : fmt::format("{} events", row.events);
  std::string share = span_ns > 0 ? fmt::format(" ({:.1f}% of the trace)",
                                                100.0 * static_cast<double>(row.lost_ns) / span_ns)
                                  : std::string();
  if (row.lost_ns == 0) {
    // Not "0 ns lost": the events went missing before the CPU's first recorded event.
    return fmt::format("{} gap{}, {}, lost before the CPU's first event", row.gaps,
                       row.gaps == 1 ? "" : "s", events);
  }
  return fmt::format("{} gap{}, {}, {} lost{}", row.gaps, row.gaps == 1 ? "" : "s", events,
                     FormatDuration(row.lost_ns), share);
}

nlohmann::json MissedPerCpuJson(const std::vector<CpuMissedSummary>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const CpuMissedSummary& row : rows) {
    if (row.gaps == 0) continue;
    out.push_back({{"cpu", row.cpu},
                   {"gaps", row.gaps},
                   {"events", row.events},
                   {"some_unknown", row.some_unknown},
                   {"lost_ns", row.lost_ns}});
  }
  return out;
}

std::string DescribeTraceFormat(const TraceMeta& meta) {
  if (meta.format != TraceFormat::kTraceDat) return std::string(TraceFormatName(meta.format));
  return fmt::format("trace.dat v{}, compression {}", meta.file_version, meta.compression);
}

std::string InfoToText(const TraceSummary& s) {
  std::string out;
  auto line = [&out](std::string text) {
    out += text;
    out += '\n';
  };
  line(fmt::format("trace:    {}", s.meta.path));
  line(fmt::format("format:   {}", DescribeTraceFormat(s.meta)));
  if (!s.meta.uname.empty()) line(fmt::format("system:   {}", s.meta.uname));
  if (!s.meta.clock.empty()) line(fmt::format("clock:    {}", s.meta.clock));
  line(fmt::format("cpus:     {}", s.meta.cpus));
  line(fmt::format("events:   {}", s.events));
  if (s.events > 0) {
    line(fmt::format("span:     {} .. {} ({})", FormatTimestamp(s.first_ts_ns),
                     FormatTimestamp(s.last_ts_ns), FormatDuration(s.last_ts_ns - s.first_ts_ns)));
  }
  line(fmt::format("tasks:    {}", s.tasks));
  if (!s.meta.buffer_instances.empty()) {
    line(fmt::format("other buffers (not loaded): {}", fmt::join(s.meta.buffer_instances, ", ")));
  }
  for (const std::string& warning : s.meta.warnings) line(fmt::format("warning:  {}", warning));

  line("");
  line("missed events per CPU:");
  for (const CpuMissedSummary& row : s.missed_per_cpu) {
    line(fmt::format("  cpu{:<3} {}", row.cpu, DescribeMissed(row, s.last_ts_ns - s.first_ts_ns)));
  }

  line("");
  std::string header = fmt::format("  {:<32} {:>10}", "event", "total");
  for (size_t cpu = 0; cpu < s.events_per_cpu.size(); ++cpu) {
    header += fmt::format(" {:>9}", fmt::format("cpu{}", cpu));
  }
  line("events by name:");
  line(header);
  for (const EventNameCount& count : s.counts) {
    std::string row = fmt::format("  {:<32} {:>10}", count.name, count.total);
    for (int64_t n : count.per_cpu) row += fmt::format(" {:>9}", n);
    line(row);
  }

  line("");
  line("analyses:");
  for (const AnalysisAvailability& a : s.analyses) {
    line(fmt::format("  {:<38} {}", a.title, a.available ? a.note : "unavailable: " + a.note));
  }
  return out;
}

nlohmann::json MissedEventsJson(const std::vector<MissedEventsMark>& missed) {
  nlohmann::json rows = nlohmann::json::array();
  for (const MissedEventsMark& mark : missed) {
    rows.push_back({{"cpu", mark.cpu},
                    {"ts_ns", mark.ts_ns},
                    {"last_before_ns", mark.last_before_ns},
                    {"count", mark.count}});
  }
  return rows;
}

nlohmann::json InfoToJson(const TraceSummary& s) {
  using nlohmann::json;
  json trace = {
      {"path", s.meta.path},
      {"format", std::string(TraceFormatName(s.meta.format))},
      {"file_version", s.meta.file_version},
      {"compression", s.meta.compression},
      {"cpus", s.meta.cpus},
      {"uname", s.meta.uname},
      {"kernel_release", s.meta.kernel_release},
      {"clock", s.meta.clock},
      {"buffer_instances", s.meta.buffer_instances},
  };
  json counts = json::object();
  for (const EventNameCount& count : s.counts) {
    counts[count.name] = {{"total", count.total}, {"per_cpu", count.per_cpu}};
  }
  json missed = MissedEventsJson(s.missed);
  json missed_per_cpu = json::array();
  for (const CpuMissedSummary& row : s.missed_per_cpu) {
    missed_per_cpu.push_back({{"cpu", row.cpu},
                              {"gaps", row.gaps},
                              {"events", row.events},
                              {"some_unknown", row.some_unknown},
                              {"lost_ns", row.lost_ns}});
  }
  json analyses = json::array();
  for (const AnalysisAvailability& a : s.analyses) {
    analyses.push_back({{"id", a.id},
                        {"title", a.title},
                        {"available", a.available},
                        {"missing_required", a.missing_required},
                        {"missing_optional", a.missing_optional},
                        {"note", a.note}});
  }
  return {
      {"schema", "napiscope.info/1"},
      {"trace", trace},
      {"events", s.events},
      {"first_ts_ns", s.first_ts_ns},
      {"last_ts_ns", s.last_ts_ns},
      {"span_ns", s.last_ts_ns - s.first_ts_ns},
      {"events_per_cpu", s.events_per_cpu},
      {"event_counts", counts},
      {"missed_events", missed},
      {"missed_events_per_cpu", missed_per_cpu},
      {"tasks", s.tasks},
      {"analyses", analyses},
      {"skipped_records", s.meta.skipped_records},
      {"skipped_lines", s.meta.skipped_lines},
      {"warnings", s.meta.warnings},
  };
}

}  // namespace napiscope
