#include <algorithm>
#include <charconv>
#include <iostream>
#include <memory>

#include "commands.h"
#include "napiscope/analysis_pipeline.h"
#include "napiscope/format.h"
#include "napiscope/report_render.h"

namespace napiscope::cli {
namespace {

struct ReportOptions {
  std::string path;
  std::string format = "text";
  std::string cpus;
  std::string from;
  std::string to;
};

bool ParseInt(std::string_view text, int* value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size() && *value >= 0;
}

std::vector<std::string_view> SplitOnComma(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string_view::npos; start = comma + 1) {
    parts.push_back(text.substr(start, comma - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

// "0,2-3" -> {0, 2, 3}, as taskset and /proc/irq/N/smp_affinity_list write CPU lists.
bool ParseCpuList(std::string_view text, std::vector<int>* cpus) {
  constexpr int kMaxCpus = 8192;  // the kernel's largest NR_CPUS
  for (std::string_view part : SplitOnComma(text)) {
    size_t dash = part.find('-');
    int first, last;
    if (!ParseInt(part.substr(0, dash), &first)) return false;
    last = first;
    if (dash != std::string_view::npos && !ParseInt(part.substr(dash + 1), &last)) return false;
    if (last < first || last >= kMaxCpus) return false;
    for (int cpu = first; cpu <= last; ++cpu) cpus->push_back(cpu);
  }
  std::sort(cpus->begin(), cpus->end());
  cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
  return true;
}

int Usage(const std::string& message) {
  std::cerr << "napiscope report: " << message << "\n";
  return kExitError;
}

int RunReport(const ReportOptions& options) {
  AnalysisOptions analysis;
  if (!options.cpus.empty() && !ParseCpuList(options.cpus, &analysis.cpus)) {
    return Usage("--cpu wants a CPU list like 0,2-3, not '" + options.cpus + "'");
  }
  if (!options.from.empty() && !ParseTimestamp(options.from, &analysis.window.from_ns)) {
    return Usage("--from wants a trace time like 1553.278955 or 1553278955000ns, not '" +
                 options.from + "'");
  }
  if (!options.to.empty() && !ParseTimestamp(options.to, &analysis.window.to_ns)) {
    return Usage("--to wants a trace time like 1553.278955 or 1553278955000ns, not '" + options.to +
                 "'");
  }
  if (analysis.window.to_ns < analysis.window.from_ns) return Usage("--to is before --from");
  Report report;
  absl::Status status = AnalyzeTrace(options.path, analysis, &report);
  if (!status.ok()) {
    std::cerr << "napiscope: " << status.message() << "\n";
    return kExitError;
  }
  int cpus = report.trace.meta.cpus;
  if (!analysis.cpus.empty() && analysis.cpus.back() >= cpus) {
    return Usage("--cpu " + std::to_string(analysis.cpus.back()) + ": the trace has CPUs 0-" +
                 std::to_string(cpus - 1));
  }
  if (options.format == "json") {
    std::cout << ReportToJson(report).dump(2) << "\n";
  } else {
    std::cout << ReportToText(report);
  }
  bool above_threshold =
      std::any_of(report.findings.begin(), report.findings.end(),
                  [](const Finding& f) { return f.severity >= Severity::kWarning; });
  return above_threshold ? kExitFindings : kExitClean;
}

}  // namespace

void AddReportCommand(CLI::App& app, std::function<int()>* run) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* report = app.add_subcommand(
      "report",
      "Analyse a trace: softirq raise-to-entry latency and who delayed it, softirq and "
      "hard-IRQ run times, CPU time per context, IRQ-thread and NAPI-thread activations and "
      "ping-pong, blocked ksoftirqd chains, idle with softirqs pending, ordering stalls, and "
      "findings. Exit code 2 when a finding is a warning or an error");
  report->add_option("FILE", options->path, "trace.dat or ftrace text")->required();
  report->add_option("--format", options->format, "text (default) or json (napiscope.report/1)")
      ->check(CLI::IsMember({"text", "json"}));
  report->add_option("--cpu", options->cpus, "only rows and findings of these CPUs, e.g. 0,2-3");
  report->add_option("--from", options->from,
                     "only what begins at or after this trace time (seconds, as trace-cmd "
                     "prints them, or with a unit: 1553278955000ns)");
  report->add_option("--to", options->to, "only what begins at or before this trace time");
  report->footer(
      "Example:\n  napiscope report trace.dat\n"
      "  napiscope report --format json trace.dat | jq '.softirq_latency[] | {cpu, name, "
      "max_ns}'\n  napiscope report --cpu 1 --from 1553.2 --to 1553.4 trace.dat");
  report->callback([options, run] { *run = [options] { return RunReport(*options); }; });
}

}  // namespace napiscope::cli
