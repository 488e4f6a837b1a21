#include "napiscope/info_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "napiscope/analysis_requirements.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/text_layout.h"

namespace napiscope {
namespace {

// One CPU's gaps as the JSON of `info` and `report` write them.
nlohmann::json MissedRowJson(const CpuMissedSummary& row) {
  return {{"cpu", row.cpu},
          {"gaps", row.gaps},
          {"events", row.events},
          {"some_unknown", row.some_unknown},
          {"lost_ns", row.lost_ns}};
}

}  // namespace

std::string DescribeMissed(const CpuMissedSummary& row, int64_t span_ns) {
  if (row.gaps == 0) return "none";
  std::string events = row.some_unknown
                           ? (row.events > 0 ? "at least " + Counted(row.events, "event")
                                             : std::string("count unknown"))
                           : Counted(row.events, "event");
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
    if (row.gaps > 0) out.push_back(MissedRowJson(row));
  }
  return out;
}

std::string DescribeTraceFormat(const TraceMeta& meta) {
  std::string format =
      meta.format != TraceFormat::kTraceDat
          ? std::string(TraceFormatName(meta.format))
          : fmt::format("trace.dat v{}, compression {}", meta.file_version, meta.compression);
  if (!meta.buffer.empty()) format += fmt::format(", buffer instance '{}'", meta.buffer);
  return format;
}

namespace {

// More CPUs than this are never shown as columns, whatever the width.
constexpr size_t kMaxCpuColumns = 64;
// The busiest CPUs named for each event in the narrow form.
constexpr size_t kBusiestCpusNamed = 6;

// Each CPU that lost events, neighbours that lost alike on one line ("cpu0-255 each ..."), then
// the others in ranges: short at any CPU count.
void AppendMissed(const TraceSummary& s, std::vector<std::string>& lines) {
  std::vector<int> none;
  std::vector<std::string> rows;
  int first = -1, last = -1;
  std::string loss;
  auto flush = [&] {
    if (first < 0) return;
    rows.push_back(first == last ? fmt::format("  cpu{:<3} {}", first, loss)
                                 : fmt::format("  cpu{}-{} each {}", first, last, loss));
  };
  for (const CpuMissedSummary& row : s.missed_per_cpu) {
    if (row.gaps == 0) {
      none.push_back(row.cpu);
      continue;
    }
    std::string described = DescribeMissed(row, s.last_ts_ns - s.first_ts_ns);
    if (first >= 0 && row.cpu == last + 1 && described == loss) {
      last = row.cpu;
      continue;
    }
    flush();
    first = last = row.cpu;
    loss = std::move(described);
  }
  flush();
  if (rows.empty()) {
    lines.push_back("missed events per CPU: none");
    return;
  }
  lines.push_back("missed events per CPU:");
  lines.insert(lines.end(), rows.begin(), rows.end());
  if (!none.empty()) lines.push_back("  none on cpu" + internal::CpuRanges(none));
}

// A column for each CPU that recorded events.
internal::TextTable CpuColumnsTable(const TraceSummary& s, const std::vector<int>& cpus) {
  std::vector<std::string> headers = {"<event", "total"};
  for (int cpu : cpus) headers.push_back(fmt::format("cpu{}", cpu));
  internal::TextTable table(std::move(headers), 2);
  for (const EventNameCount& count : s.counts) {
    std::vector<std::string> cells = {count.name, fmt::format("{}", count.total)};
    auto next = count.per_cpu.begin();
    for (int cpu : cpus) {
      while (next != count.per_cpu.end() && next->cpu < cpu) ++next;
      bool here = next != count.per_cpu.end() && next->cpu == cpu;
      cells.push_back(fmt::format("{}", here ? next->events : 0));
    }
    table.Add(std::move(cells));
  }
  return table;
}

// Each name's busiest CPUs in words, for more CPUs than columns fit.
internal::TextTable BusiestCpusTable(const TraceSummary& s) {
  internal::TextTable table({"<event", "total", "<busiest CPUs"}, 1);
  for (const EventNameCount& count : s.counts) {
    std::vector<CpuEventCount> busiest = count.per_cpu;
    bool alike = std::all_of(busiest.begin(), busiest.end(), [&](const CpuEventCount& c) {
      return c.events == busiest.front().events;
    });
    if (alike && busiest.size() > kBusiestCpusNamed + 1) {  // none is busiest: "cpu0-15 each 9"
      std::vector<int> cpus;
      for (const CpuEventCount& c : busiest) cpus.push_back(c.cpu);
      table.Add({count.name, fmt::format("{}", count.total),
                 fmt::format("cpu{} each {}", internal::CpuRanges(cpus), busiest.front().events)});
      continue;
    }
    // "and 1 more" would take the room of naming it.
    size_t named = busiest.size() <= kBusiestCpusNamed + 1 ? busiest.size() : kBusiestCpusNamed;
    std::partial_sort(busiest.begin(), busiest.begin() + static_cast<ptrdiff_t>(named),
                      busiest.end(), [](const CpuEventCount& a, const CpuEventCount& b) {
                        return a.events != b.events ? a.events > b.events : a.cpu < b.cpu;
                      });
    std::string words;
    for (size_t i = 0; i < named; ++i) {
      words += fmt::format("{}cpu{}:{}", i == 0 ? "" : ", ", busiest[i].cpu, busiest[i].events);
    }
    if (busiest.size() > named) words += fmt::format(" and {} more", busiest.size() - named);
    table.Add({count.name, fmt::format("{}", count.total), words});
  }
  return table;
}

// Events by name: a column per CPU that recorded events while they fit in `width`, else each
// name's busiest CPUs.
void AppendNameCounts(const TraceSummary& s, size_t width, std::vector<std::string>& lines) {
  std::vector<int> cpus, silent;
  for (size_t cpu = 0; cpu < s.events_per_cpu.size(); ++cpu) {
    (s.events_per_cpu[cpu] > 0 ? cpus : silent).push_back(static_cast<int>(cpu));
  }
  if (cpus.size() <= kMaxCpuColumns) {
    std::vector<std::string> table = CpuColumnsTable(s, cpus).Lines(0);
    size_t widest = 0;
    for (const std::string& line : table) widest = std::max(widest, line.size());
    if (width == 0 || widest <= width) {
      lines.push_back(silent.empty() || cpus.empty()
                          ? std::string("events by name:")
                          : "events by name (none on cpu" + internal::CpuRanges(silent) + "):");
      lines.insert(lines.end(), table.begin(), table.end());
      return;
    }
  }
  lines.push_back(fmt::format("events by name, on {}:", Counted(std::ssize(cpus), "CPU")));
  BusiestCpusTable(s).AppendTo(width, lines);
}

// The enabled events that never happened, when the recorder listed what it enabled: they
// were recorded (an idle NIC polls nothing), unlike an event that was not enabled.
void AppendEnabledWithoutEvents(const TraceSummary& s, size_t width,
                                std::vector<std::string>& lines) {
  std::vector<std::string> silent;
  for (const std::string& qualified : s.meta.enabled_events) {
    bool occurred = std::any_of(s.counts.begin(), s.counts.end(), [&](const EventNameCount& c) {
      return c.name == EventPartOf(qualified) && c.total > 0;
    });
    if (!occurred) silent.push_back(qualified);
  }
  if (silent.empty()) return;
  lines.push_back("");
  lines.push_back(fmt::format("enabled, never happened ({} of the {} enabled events):",
                              silent.size(), s.meta.enabled_events.size()));
  for (std::string& line :
       internal::Wrap(fmt::format("{}", fmt::join(silent, ", ")), width, "  ")) {
    lines.push_back(std::move(line));
  }
}

}  // namespace

std::string InfoToText(const TraceSummary& s, size_t width) {
  std::vector<std::string> lines;
  auto line = [&lines](std::string text) { lines.push_back(std::move(text)); };
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
  AppendMissed(s, lines);
  line("");
  AppendNameCounts(s, width, lines);
  AppendEnabledWithoutEvents(s, width, lines);

  line("");
  line("analyses:");
  for (const AnalysisAvailability& a : s.analyses) {
    std::string note = a.available ? a.note : "unavailable: " + a.note;
    for (std::string& text : internal::Wrap(note, width, fmt::format("  {:<38} ", a.title))) {
      line(std::move(text));
    }
  }
  return internal::JoinLines(lines);
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
      {"buffer", s.meta.buffer},
      {"buffer_instances", s.meta.buffer_instances},
      // null when the file does not say (only napiscope record's files and live do)
      {"enabled_events",
       s.meta.enabled_events.empty() ? json(nullptr) : json(s.meta.enabled_events)},
  };
  json counts = json::object();
  for (const EventNameCount& count : s.counts) {
    json per_cpu = json::array();
    for (const CpuEventCount& c : count.per_cpu) {
      per_cpu.push_back({{"cpu", c.cpu}, {"events", c.events}});
    }
    counts[count.name] = {{"total", count.total}, {"per_cpu", std::move(per_cpu)}};
  }
  json missed = MissedEventsJson(s.missed);
  json missed_per_cpu = json::array();  // every CPU, those without gaps too (info/2)
  for (const CpuMissedSummary& row : s.missed_per_cpu) missed_per_cpu.push_back(MissedRowJson(row));
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
      {"schema", "napiscope.info/2"},
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
