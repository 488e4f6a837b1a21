#include "live_summary.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/report_render.h"
#include "napiscope/text_wrap.h"

namespace napiscope::cli {
namespace {

struct CpuLine {
  std::vector<const SoftirqLatencyRow*> softirqs;
  int64_t blocked = 0;
  int64_t blocked_max_ns = 0;
  // The longest raise-to-entry p99 of its vectors.
  int64_t worst_p99_ns() const {
    int64_t worst = 0;
    for (const SoftirqLatencyRow* row : softirqs) worst = std::max(worst, row->delay.p99_ns);
    return worst;
  }
};

std::map<int, CpuLine> CpuLines(const Report& report, size_t cpus) {
  std::map<int, CpuLine> lines;
  for (size_t cpu = 0; cpu < cpus; ++cpu) lines[static_cast<int>(cpu)];
  for (const SoftirqLatencyRow& row : report.softirq_latency) lines[row.cpu].softirqs.push_back(&row);
  for (const KsoftirqdBlockedRow& row : report.ksoftirqd_blocked) {
    CpuLine& line = lines[row.cpu];
    ++line.blocked;
    line.blocked_max_ns = std::max(line.blocked_max_ns, row.duration_ns);
  }
  return lines;
}

int64_t LostEvents(const Report& report) {
  int64_t lost = 0;
  for (const CpuMissedSummary& cpu : report.trace.missed_per_cpu) lost += cpu.events;
  return lost;
}

int64_t LostGaps(const Report& report) {
  int64_t gaps = 0;
  for (const CpuMissedSummary& cpu : report.trace.missed_per_cpu) gaps += cpu.gaps;
  return gaps;
}

// "0 lost", "120 lost", or, when a gap did not say how many it lost, "at least 120 lost in 3
// gaps" or "events lost in 1 gap" (its summary said "0 lost" above a report listing the gap).
std::string LostText(const Report& report) {
  int64_t events = LostEvents(report);
  bool some_unknown =
      std::any_of(report.trace.missed_per_cpu.begin(), report.trace.missed_per_cpu.end(),
                  [](const CpuMissedSummary& cpu) { return cpu.some_unknown; });
  if (!some_unknown) return fmt::format("{} lost", events);
  int64_t gaps = LostGaps(report);
  std::string in_gaps = fmt::format("in {} gap{}", gaps, gaps == 1 ? "" : "s");
  return events > 0 ? fmt::format("at least {} lost {}", events, in_gaps)
                    : fmt::format("events lost {}", in_gaps);
}

// The NAPI polls of `cpu`; none for a CPU beyond the counts.
LiveNapiCounts NapiOf(const std::vector<LiveNapiCounts>& napi, int cpu) {
  return static_cast<size_t>(cpu) < napi.size() ? napi[static_cast<size_t>(cpu)] : LiveNapiCounts{};
}

double Share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

// The CPUs worst first: most blocked ksoftirqd, then longest raise-to-entry p99, then most
// NAPI polls, then CPU number.
std::vector<int> WorstFirst(const std::map<int, CpuLine>& lines,
                            const std::vector<LiveNapiCounts>& napi) {
  auto polls = [&](int cpu) { return NapiOf(napi, cpu).polls; };
  std::vector<int> cpus;
  for (const auto& [cpu, line] : lines) cpus.push_back(cpu);
  std::stable_sort(cpus.begin(), cpus.end(), [&](int a, int b) {
    const CpuLine& x = lines.at(a);
    const CpuLine& y = lines.at(b);
    return std::make_tuple(x.blocked, x.worst_p99_ns(), polls(a)) >
           std::make_tuple(y.blocked, y.worst_p99_ns(), polls(b));
  });
  return cpus;
}

std::vector<const ThreadActivityRow*> Threads(const Report& report) {
  std::vector<const ThreadActivityRow*> threads;
  for (const ThreadActivityRow& row : report.irq_threads) threads.push_back(&row);
  for (const ThreadActivityRow& row : report.napi_threads) threads.push_back(&row);
  return threads;
}

}  // namespace

std::string LiveSummaryText(const LiveSummaryInput& input) {
  const Report& report = *input.report;
  // While tracing, the rate of the last interval (an average since the start kept falling
  // after a burst ended); once stopped, the average of the run.
  double seconds = input.final ? input.elapsed_s : input.elapsed_s - input.previous_elapsed_s;
  int64_t events = input.final ? input.events : input.events - input.previous_events;
  double rate = seconds > 0 ? static_cast<double>(events) / seconds : 0.0;
  std::string out =
      WrapWords(fmt::format("napiscope live{}: {:.1f} s, {} events ({:.0f}/s{}), {}; instance {}",
                            input.final ? " (stopped)" : "", input.elapsed_s, input.events, rate,
                            input.final ? " on average" : "", LostText(report), input.instance),
                input.width, "", "  ") +
      "\n";
  // The fixed columns first; the softirq vectors, as many as ran, last, wrapped under their
  // column.
  constexpr std::string_view kColumns = "{:>4}  {:>10}  {:>9}  {:<17}  ";
  std::map<int, CpuLine> lines = CpuLines(report, input.napi->size());
  std::vector<int> shown;
  for (const auto& [cpu, line] : lines) shown.push_back(cpu);
  std::vector<int> others;
  if (input.shown_cpus > 0 && shown.size() > input.shown_cpus) {
    shown = WorstFirst(lines, *input.napi);
    others.assign(shown.begin() + static_cast<ptrdiff_t>(input.shown_cpus), shown.end());
    shown.resize(input.shown_cpus);
    out += WrapWords(fmt::format("the {} of {} CPUs with the most blocked ksoftirqd and the "
                                 "longest raise-to-entry p99, worst first:",
                                 shown.size(), lines.size()),
                     input.width, "", "");
  }
  out += fmt::format(kColumns, "CPU", "NAPI polls", "exhausted", "ksoftirqd blocked") +
         "raise-to-entry p99/max\n";
  for (int cpu : shown) {
    const CpuLine& line = lines.at(cpu);
    std::vector<std::string> softirqs;
    for (const SoftirqLatencyRow* row : line.softirqs) {
      softirqs.push_back(fmt::format("{} {}/{}", SoftirqVectorName(row->vec),
                                     FormatDuration(row->delay.p99_ns),
                                     FormatDuration(row->delay.max_ns)));
    }
    if (softirqs.empty()) softirqs.push_back("-");
    LiveNapiCounts napi = NapiOf(*input.napi, cpu);
    std::string blocked =
        line.blocked == 0 ? "-"
                          : fmt::format("{} ({})", line.blocked, FormatDuration(line.blocked_max_ns));
    // No polls: no share to give ("0.0%" read as polls that never used their budget).
    std::string exhausted =
        napi.polls == 0 ? "-" : fmt::format("{:.1f}%", 100 * Share(napi.exhausted, napi.polls));
    std::string fixed = fmt::format(kColumns, cpu, napi.polls, exhausted, blocked);
    out += WrapPieces(softirqs, "  ", input.width, fixed, std::string(fixed.size(), ' '));
  }
  if (!others.empty()) {
    int64_t polls = 0, blocked = 0, worst_p99_ns = 0;
    for (int cpu : others) {
      const CpuLine& line = lines.at(cpu);
      polls += NapiOf(*input.napi, cpu).polls;
      blocked += line.blocked;
      worst_p99_ns = std::max(worst_p99_ns, line.worst_p99_ns());
    }
    std::string blocked_text =
        blocked == 0 ? "no ksoftirqd blocked" : fmt::format("ksoftirqd blocked {} times", blocked);
    std::string cpus_text =
        others.size() == 1 ? "the other CPU" : fmt::format("the other {} CPUs", others.size());
    out += WrapWords(fmt::format("{}: {} NAPI polls, {}, raise-to-entry p99 at most {}", cpus_text,
                                 polls, blocked_text, FormatDuration(worst_p99_ns)),
                     input.width, "  ", "    ");
  }
  std::vector<const ThreadActivityRow*> threads = Threads(report);
  if (!threads.empty()) {
    out += "\nIRQ and NAPI threads: activations that ran on another CPU than their wakeup\n";
    size_t shown_threads = threads.size();
    if (input.shown_cpus > 0 && threads.size() > input.shown_cpus) {
      // As many as CPUs, the most cross-CPU first (a server's RT kernel has hundreds).
      std::stable_sort(threads.begin(), threads.end(), [](const auto* a, const auto* b) {
        return a->CrossCpuShare() > b->CrossCpuShare();
      });
      shown_threads = input.shown_cpus;
    }
    for (size_t i = 0; i < shown_threads; ++i) {
      const ThreadActivityRow* row = threads[i];
      out += fmt::format("  {:<24} pid {:<7} {:>7}/{:<7} {:>5.1f}%\n", row->comm, row->pid,
                         row->cross_cpu_activations, row->activations,
                         100 * row->CrossCpuShare());
    }
    if (shown_threads < threads.size()) {
      out +=
          fmt::format("  {} more, at most {:.1f}% on another CPU\n", threads.size() - shown_threads,
                      100 * threads[shown_threads]->CrossCpuShare());
    }
  }
  out += "\nFindings:\n";
  if (report.findings.empty()) out += input.final ? "  none\n" : "  none yet\n";
  for (const Finding& finding : report.findings) {
    out += WrapWords(finding.summary, input.width,
                     fmt::format("  {:<8} ", SeverityName(finding.severity)), std::string(11, ' '));
  }
  return out;
}

nlohmann::json LiveSummaryJson(const LiveSummaryInput& input) {
  const Report& report = *input.report;
  nlohmann::json cpus = nlohmann::json::array();
  for (const auto& [cpu, line] : CpuLines(report, input.napi->size())) {
    nlohmann::json softirqs = nlohmann::json::array();
    for (const SoftirqLatencyRow* row : line.softirqs) {
      softirqs.push_back({{"vec", row->vec},
                          {"name", SoftirqVectorName(row->vec)},
                          {"count", row->delay.count},
                          {"p99_ns", row->delay.p99_ns},
                          {"max_ns", row->delay.max_ns}});
    }
    LiveNapiCounts napi = NapiOf(*input.napi, cpu);
    cpus.push_back({{"cpu", cpu},
                    {"softirq_latency", softirqs},
                    {"napi_polls", napi.polls},
                    {"napi_exhausted", napi.exhausted},
                    {"ksoftirqd_blocked", line.blocked},
                    {"ksoftirqd_blocked_max_ns", line.blocked_max_ns}});
  }
  nlohmann::json threads = nlohmann::json::array();
  for (const ThreadActivityRow* row : Threads(report)) {
    threads.push_back({{"comm", row->comm},
                       {"pid", row->pid},
                       {"activations", row->activations},
                       {"cross_cpu_activations", row->cross_cpu_activations},
                       {"cross_cpu_share", row->CrossCpuShare()}});
  }
  return {{"schema", "napiscope.live/1"},
          {"final", input.final},
          {"elapsed_s", input.elapsed_s},
          {"events", input.events},
          {"lost_events", LostEvents(report)},
          {"lost_gaps", LostGaps(report)},
          {"cpus", cpus},
          {"threads", threads},
          {"findings", ReportToJson(report)["findings"]}};
}

std::string RecordProgressLine(const RecordProgress& progress) {
  double seconds = static_cast<double>(progress.elapsed_ns) / 1e9;
  double rate = seconds > 0 ? static_cast<double>(progress.events) / seconds : 0.0;
  return fmt::format("recording {:.1f} s: {} events ({:.0f}/s), {} lost, {:.1f} MiB; Ctrl-C stops",
                     seconds, progress.events, rate, progress.lost_events,
                     static_cast<double>(progress.bytes) / (1 << 20));
}

}  // namespace napiscope::cli
