#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/json_text.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_diff.h"
#include "trace_arguments.h"

namespace napiscope::cli {
namespace {

struct DiffOptions {
  std::string before;
  std::string after;
  std::string format = "text";
  std::string output;
  double fail_on_regression_pct = -1;  // < 0: never fail on a regression
  double noise_pct = kDefaultNoisePercent;
  AnalysisFlags flags;
  bool quiet = false;
  int width = -1;  // -1: the terminal's width on a terminal, else 120
};

int RunDiff(const DiffOptions& options) {
  AnalysisOptions analysis;
  std::string error;
  if (!options.flags.Apply(&analysis, &error)) return Fail("diff", error);
  if (!CheckOutput(options.output, {options.before, options.after}, &error))
    return Fail("diff", error);
  Report before, after;
  for (auto [argument, report] : {std::pair{&options.before, &before}, {&options.after, &after}}) {
    std::string path = *argument;
    if (!ResolveTraceArgument(&path, &error)) return Fail("", error);
    absl::Status status =
        AnalyzeTraceWindowed(path, options.flags, analysis, options.quiet, report);
    if (!status.ok()) return Fail("", std::string(status.message()));
  }
  ReportDiff diff = DiffReports(before, after, options.noise_pct);
  std::string text = options.format == "json" ? JsonText(DiffToJson(diff), 2) + "\n"
                     : options.format == "markdown"
                         ? DiffToMarkdown(diff)
                         : DiffToText(diff, TextWidthFor(options.output, options.width, 120));
  if (!WriteOutput(options.output, text, &error)) return Fail("diff", error);
  int regressions = options.fail_on_regression_pct < 0
                        ? 0
                        : CountRegressions(diff, options.fail_on_regression_pct);
  if (options.fail_on_regression_pct >= 0 && !options.quiet) {
    // A CI log says why the job passed as well as why it failed.
    int by_less = CountRegressions(diff, 0) - regressions;
    std::cerr << "napiscope diff: "
              << (regressions > 0 ? Counted(regressions, "metric") : std::string("no metric"))
              << " regressed by more than " << options.fail_on_regression_pct << "%"
              << (regressions == 0 && by_less > 0 ? fmt::format(" ({} by less)", by_less)
                                                  : std::string())
              << "\n";
  }
  return regressions > 0 ? kExitFindings : kExitClean;
}

}  // namespace

void AddDiffCommand(CLI::App& app, std::function<int()>* run) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff",
      "Compare two traces, before and after a change: a first line counting regressed, "
      "improved and unchanged metrics and the findings that are new, worse or gone; warnings "
      "when the traces do not compare (CPU counts, kernels, lost events, events one did not "
      "record); then softirq latency "
      "per CPU and vector (p50/p99/max), IRQ- and NAPI-thread cross-CPU share and migrations, "
      "NAPI budget, RT wake latency and CPU time per context, the most changed first, with the "
      "samples behind each value");
  diff->add_option("BEFORE", options->before, "the trace before the change")->required();
  diff->add_option("AFTER", options->after, "the trace after the change")->required();
  diff->add_option("-f,--format", options->format,
                   "text (default), json (napiscope.diff/1) or markdown")
      ->check(OneOf({"text", "json", "markdown"}));
  diff->add_option("-o,--output", options->output, "write to this file instead of stdout");
  diff->add_option("--fail-on-regression", options->fail_on_regression_pct,
                   "exit 2 when a metric that should go down went up by more than PCT percent "
                   "(points for a share), a change its samples support (not 'not significant'); "
                   "without it diff exits 0 whatever it shows")
      ->check(NumberAtLeast(0));
  diff->add_option("--noise", options->noise_pct,
                   "count a change of at most PCT percent as unchanged, shown as 'within PCT%' "
                   "(default 5: two recordings of one workload differ by that much; 0 judges "
                   "every change); --fail-on-regression sees such changes too")
      ->check(NumberAtLeast(0));
  diff->add_option("--width", options->width,
                   "wrap sentences at N columns, and give each metric two lines when its row is "
                   "wider (default: the terminal's width, else COLUMNS, else 120; 0: never)")
      ->check(ColumnCount());
  options->flags.AddTo(diff);
  diff->add_flag("-q,--quiet", options->quiet, "no progress bar");
  diff->footer(
      "Examples:\n"
      "  napiscope diff before.dat after.dat\n"
      "  napiscope diff --format markdown -o diff.md before.dat after.dat\n"
      "  napiscope diff --fail-on-regression 10 baseline.dat candidate.dat\n\n" +
      std::string(kExitCodesHelp));
  diff->callback([options, run] { *run = [options] { return RunDiff(*options); }; });
}

}  // namespace napiscope::cli
