#include <algorithm>
#include <iostream>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/json_text.h"
#include "napiscope/report_html.h"
#include "napiscope/report_render.h"
#include "trace_arguments.h"

namespace napiscope::cli {
namespace {

struct ReportOptions {
  std::string path;
  std::string format = "text";
  std::string output = "-";
  AnalysisFlags flags;
  bool quiet = false;
  TextReportOptions text;
  int width = -1;  // -1: the terminal's width on a terminal, else the default
};

int RunReport(const ReportOptions& options) {
  AnalysisOptions analysis;
  std::string error;
  if (!options.flags.Apply(&analysis, &error)) return Fail("report", error);
  if (!CheckOutput(options.output, {options.path}, &error)) return Fail("report", error);
  std::string path = options.path;
  if (!ResolveTraceArgument(&path, &error)) return Fail("", error);
  // HTML draws timelines, so its load builds the timeline model too.
  auto html = std::make_unique<HtmlTrace>();
  absl::Status status =
      options.format == "html"
          ? LoadHtmlTraceWindowed(path, options.flags, analysis, options.quiet, html.get())
          : AnalyzeTraceWindowed(path, options.flags, analysis, options.quiet, &html->report);
  if (!status.ok()) return Fail("", std::string(status.message()));
  const Report& report = html->report;
  std::string content;
  if (options.format == "json") {
    content = JsonText(ReportToJson(report), 2) + "\n";
  } else if (options.format == "html") {
    content = ReportToHtml(html->View());
  } else {
    TextReportOptions text = options.text;
    text.width = TextWidthFor(options.output, options.width, text.width);
    content = ReportToText(report, text);
  }
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
  report->add_option("FILE", options->path, "trace.dat or ftrace text (- for stdin)")->required();
  report
      ->add_option("--format", options->format,
                   "text (default), json (napiscope.report/1) or html (one self-contained page)")
      ->check(OneOf({"text", "json", "html"}));
  report->add_option("-o,--output", options->output, "write to this file (default - : stdout)");
  report->add_flag("--summary", options->text.summary,
                   "findings, lost and missing events, and one line per analysis; no tables");
  report->add_option("--top", options->text.top, "entries of every longest/worst list (default 10)")
      ->check(WholeNumber(1));
  report
      ->add_option("--width", options->width,
                   "wrap sentences at N columns (default: the terminal's width, else "
                   "COLUMNS, else 120; 0: never)")
      ->check(ColumnCount());
  options->flags.AddTo(report);
  report->add_flag("-q,--quiet", options->quiet, "no progress bar");
  report->footer(
      "Examples:\n  napiscope report trace.dat\n"
      "  napiscope report --format json trace.dat \\\n"
      "      | jq '.softirq_latency[] | {cpu, name, max_ns}'\n"
      "  napiscope report --summary trace.dat\n"
      "  napiscope report --top 3 --cpu 1 --from 1553.2 --to +200ms trace.dat");
  report->callback([options, run] { *run = [options] { return RunReport(*options); }; });
}

}  // namespace napiscope::cli
