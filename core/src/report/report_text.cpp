// `napiscope report` for people: what the trace is and lacks, the findings, then the tables.
#include "report/net_path_render.h"
#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/info_report.h"
#include "napiscope/report_render.h"
#include "report/describe.h"
#include "report/napi_rt_render.h"
#include "report/scheduling_render.h"

namespace napiscope {
namespace {

// Worst waits and their holders shown per (cpu, vec) in text; JSON has them all.
constexpr size_t kTextWorstWaits = 3;
constexpr size_t kTextHolders = 3;

class Text {
 public:
  void Line(std::string text) {
    out_ += text;
    out_ += '\n';
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string Percent(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / whole) : "-";
}

std::string MissedLine(const MissedEventsMark& mark) {
  std::string count = mark.count < 0 ? std::string("an unknown number of events")
                                     : fmt::format("{} events", mark.count);
  if (mark.last_before_ns < 0) {
    return fmt::format("cpu{} lost {} before its first event at {}", mark.cpu, count,
                       FormatTimestamp(mark.ts_ns));
  }
  return fmt::format("cpu{} lost {} between {} and {} ({})", mark.cpu, count,
                     FormatTimestamp(mark.last_before_ns), FormatTimestamp(mark.ts_ns),
                     FormatDuration(mark.ts_ns - mark.last_before_ns));
}

void Header(const Report& report, Text& text) {
  const TraceSummary& s = report.trace;
  text.Line(fmt::format("trace:    {}", s.meta.path));
  text.Line(fmt::format("format:   {}", DescribeTraceFormat(s.meta)));
  if (!s.meta.kernel_release.empty()) text.Line(fmt::format("kernel:   {}", s.meta.kernel_release));
  text.Line(fmt::format("model:    {}", internal::KernelModelLine(report.kernel)));
  text.Line(fmt::format("cpus:     {}, events: {}", s.meta.cpus, s.events));
  if (s.events > 0) {
    text.Line(fmt::format("span:     {} .. {} ({})", FormatTimestamp(s.first_ts_ns),
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
    text.Line(fmt::format("window:   {} .. {} (what begins inside counts)", from, to));
  }
  if (!report.cpus.empty()) text.Line(fmt::format("rows:     cpu {}", fmt::join(report.cpus, ",")));

  for (const CpuMissedSummary& row : s.missed_per_cpu) {
    if (row.gaps == 0) continue;
    text.Line(fmt::format("lost:     cpu{} {}", row.cpu,
                          DescribeMissed(row, s.last_ts_ns - s.first_ts_ns)));
  }
  for (const std::string& warning : s.meta.warnings) text.Line("warning:  " + warning);

  std::vector<std::string> missing;
  for (const MissedEventsMark& mark : s.missed) missing.push_back(MissedLine(mark));
  if (!s.missed.empty()) missing.push_back("waits pending across a loss are dropped, not guessed");
  for (const AnalysisAvailability& a : s.analyses) {
    if (!ReportRunsAnalysis(a.id)) {
      continue;
    }
    if (!a.available) {
      missing.push_back(
          fmt::format("{}: not available, needs {}", a.title, fmt::join(a.missing_required, ", ")));
    } else if (!a.missing_optional.empty()) {
      missing.push_back(fmt::format("{}: less complete without {}", a.title,
                                    fmt::join(a.missing_optional, ", ")));
    }
  }
  if (report.anomalies.missing_switches > 0) {
    missing.push_back(fmt::format(
        "{} sched_switch events missing (a task's events followed another's without a switch); "
        "the time before each is unknown",
        report.anomalies.missing_switches));
  }
  if (report.anomalies.unmatched_exits > 0) {
    missing.push_back(
        fmt::format("{} IRQ/softirq exits without an entry", report.anomalies.unmatched_exits));
  }
  for (size_t i = 0; i < missing.size(); ++i) {
    text.Line(fmt::format("{}{}", i == 0 ? "missing:  " : "          ", missing[i]));
  }
}

void Findings(const Report& report, Text& text) {
  text.Line("");
  if (report.findings.empty()) {
    text.Line("findings: none");
    return;
  }
  text.Line("findings:");
  for (const Finding& f : report.findings) {
    text.Line(fmt::format("  {:<8} {}", SeverityName(f.severity), f.summary));
    if (f.end_ns > f.start_ns) {
      text.Line(fmt::format("  {:<8} at {} .. {}", "", FormatTimestamp(f.start_ns),
                            FormatTimestamp(f.end_ns)));
    }
  }
}

std::string StatsColumns(const DurationStats& d) {
  return fmt::format("{:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}{}", d.count,
                     FormatDuration(d.min_ns), FormatDuration(d.p50_ns), FormatDuration(d.p90_ns),
                     FormatDuration(d.p99_ns), FormatDuration(d.p999_ns), FormatDuration(d.max_ns),
                     FormatTimestamp(d.max_at_ns), d.exact ? "" : " ~");
}

constexpr std::string_view kStatsHeader =
    "   count       min       p50       p90       p99     p99.9       max    max at";

void SoftirqLatency(const Report& report, Text& text) {
  text.Line("");
  const AnalysisAvailability* availability = report.Availability("softirq_latency");
  if (availability != nullptr && !availability->available) {
    text.Line(fmt::format("softirq raise-to-entry latency: not available, the trace has no {}",
                          fmt::join(availability->missing_required, ", ")));
    return;
  }
  text.Line("softirq raise-to-entry latency (max at = the raise):");
  text.Line(fmt::format("  cpu {:<8} {}   dropped  ran in", "vec", kStatsHeader));
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    std::vector<std::string> sites;
    for (const auto& [site, count] : row.ran_in) {
      sites.push_back(fmt::format("{} {}", SoftirqSiteName(site), count));
    }
    text.Line(fmt::format("  {:<3} {:<8} {} {:>9}  {}", row.cpu, internal::VectorLabel(row.vec),
                          StatsColumns(row.delay), row.dropped_pairs, fmt::join(sites, ", ")));
  }
  text.Line("");
  text.Line("longest waits and what held the CPU:");
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    for (size_t i = 0; i < row.worst.size() && i < kTextWorstWaits; ++i) {
      const SoftirqWait& wait = row.worst[i];
      std::vector<std::string> holders;
      for (size_t h = 0; h < wait.blame.size() && h < kTextHolders; ++h) {
        holders.push_back(fmt::format("{} {}", internal::DescribeHolder(wait.blame[h]),
                                      FormatDuration(wait.blame[h].time_ns)));
      }
      if (wait.blame.size() > kTextHolders) {
        holders.push_back(fmt::format("{} more", wait.blame.size() - kTextHolders));
      }
      if (wait.unknown_ns > 0) holders.push_back(FormatDuration(wait.unknown_ns) + " unknown");
      text.Line(fmt::format("  cpu{} {:<8} {:>9} raised {} ran {} in {}: {}", row.cpu,
                            internal::VectorLabel(row.vec), FormatDuration(wait.delay_ns),
                            FormatTimestamp(wait.raise_ns), FormatTimestamp(wait.entry_ns),
                            SoftirqSiteName(wait.ran_in), fmt::join(holders, ", ")));
    }
  }
}

void Runtimes(const Report& report, Text& text) {
  text.Line("");
  text.Line("softirq run time, entry to exit (max at = the entry):");
  text.Line(fmt::format("  cpu {:<8} {} preempted", "vec", kStatsHeader));
  for (const SoftirqRuntimeRow& row : report.softirq_runtime) {
    text.Line(fmt::format("  {:<3} {:<8} {} {:>9}", row.cpu, internal::VectorLabel(row.vec),
                          StatsColumns(row.run), row.preempted_runs));
  }
  text.Line("");
  text.Line("hard IRQ run time, entry to exit (max at = the entry):");
  text.Line(fmt::format("  cpu {:<26} {}", "irq", kStatsHeader));
  for (const HardirqRuntimeRow& row : report.hardirq_runtime) {
    text.Line(fmt::format("  {:<3} {:<26} {}", row.cpu, fmt::format("{} {}", row.irq, row.name),
                          StatsColumns(row.run)));
  }
}

void CpuTime(const Report& report, Text& text) {
  if (report.cpu_time.empty()) return;
  text.Line("");
  text.Line("CPU time (share of the CPU's traced span):");
  std::string header = fmt::format("  {:<20}", "");
  for (const CpuTimeRow& row : report.cpu_time)
    header += fmt::format(" {:>18}", fmt::format("cpu{}", row.cpu));
  text.Line(header);
  auto line = [&](std::string_view label, auto value_of) {
    std::string out = fmt::format("  {:<20}", label);
    for (const CpuTimeRow& row : report.cpu_time) {
      int64_t ns = value_of(row);
      out += fmt::format(" {:>11} {:>6}", FormatDuration(ns), Percent(ns, row.span_ns));
    }
    text.Line(out);
  };
  line("span", [](const CpuTimeRow& r) { return r.span_ns; });
  line("unknown", [](const CpuTimeRow& r) { return r.unknown_ns; });
  line("idle", [](const CpuTimeRow& r) { return r.idle_ns; });
  line("hard IRQ", [](const CpuTimeRow& r) { return r.hardirq_ns; });
  size_t vectors = 0;
  for (const CpuTimeRow& row : report.cpu_time) vectors = std::max(vectors, row.softirq_ns.size());
  for (size_t vec = 0; vec < vectors; ++vec) {
    auto ns_of = [vec](const CpuTimeRow& r) {
      return vec < r.softirq_ns.size() ? r.softirq_ns[vec] : 0;
    };
    bool used = std::any_of(report.cpu_time.begin(), report.cpu_time.end(),
                            [&](const CpuTimeRow& r) { return ns_of(r) > 0; });
    if (used) line("softirq " + internal::VectorLabel(static_cast<uint32_t>(vec)), ns_of);
  }
  line("IRQ threads", [](const CpuTimeRow& r) { return r.irq_thread_ns; });
  line("ksoftirqd", [](const CpuTimeRow& r) { return r.ksoftirqd_ns; });
  line("NAPI threads", [](const CpuTimeRow& r) { return r.napi_kthread_ns; });
  line("other RT tasks", [](const CpuTimeRow& r) { return r.rt_task_ns; });
  line("other tasks", [](const CpuTimeRow& r) { return r.other_task_ns; });
}

}  // namespace

std::string ReportToText(const Report& report) {
  Text text;
  Header(report, text);
  Findings(report, text);
  SoftirqLatency(report, text);
  Runtimes(report, text);
  CpuTime(report, text);
  for (std::string& line : internal::SchedulingText(report)) text.Line(std::move(line));
  for (std::string& line : internal::NapiRtText(report)) text.Line(std::move(line));
  for (std::string& line : internal::NetPathText(report)) text.Line(std::move(line));
  return text.Take();
}

}  // namespace napiscope
