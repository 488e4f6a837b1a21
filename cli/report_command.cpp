#include <algorithm>
#include <iostream>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/json_text.h"
#include "napiscope/report_html.h"
#include "napiscope/report_render.h"

namespace napiscope::cli {
namespace {

struct ReportOptions {
  std::string path;
  std::string format = "text";
  std::string output = "-";
  AnalysisFlags flags;
  bool quiet = false;
};

int RunReport(const ReportOptions& options) {
  AnalysisOptions analysis;
  std::string error;
  if (!options.flags.Apply(&analysis, &error)) return Fail("report", error);
  // HTML draws timelines, so its load builds the timeline model too.
  auto html = std::make_unique<HtmlTrace>();
  absl::Status status =
      options.format == "html"
          ? LoadHtmlWithProgress(options.path, analysis, options.quiet, html.get())
          : AnalyzeWithProgress(options.path, analysis, options.quiet, &html->report);
  if (!status.ok()) return Fail("", std::string(status.message()));
  const Report& report = html->report;
  if (error = CheckCpusExist(analysis, report); !error.empty()) return Fail("report", error);
  std::string content = options.format == "json"   ? JsonText(ReportToJson(report), 2) + "\n"
                        : options.format == "html" ? ReportToHtml(html->View())
                                                   : ReportToText(report);
  if (!WriteOutput(options.output, content, &error)) return Fail("report", error);
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
  report->add_option("--format", options->format,
                     "text (default), json (napiscope.report/1) or html (one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "html"}));
  report->add_option("-o,--output", options->output, "write to this file (default - : stdout)");
  options->flags.AddTo(report);
  report->add_flag("-q,--quiet", options->quiet, "no progress bar");
  report->footer(
      "Examples:\n  napiscope report trace.dat\n"
      "  napiscope report --format json trace.dat | jq '.softirq_latency[] | {cpu, name, "
      "max_ns}'\n  napiscope report --cpu 1 --from 1553.2 --to 1553.4 trace.dat");
  report->callback([options, run] { *run = [options] { return RunReport(*options); }; });
}

}  // namespace napiscope::cli
