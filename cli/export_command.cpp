#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/perfetto_export.h"
#include "napiscope/phrasing.h"
#include "output_file.h"
#include "trace_arguments.h"

namespace napiscope::cli {
namespace {

struct ExportOptions {
  std::string path;
  std::string format = "perfetto";
  std::string output;
  AnalysisFlags flags;
  bool progress = false;
  bool quiet = false;
};

// What the reader of the exported file cannot see in it: the loader's warnings (as the report
// prints them) and the analyses whose events the trace lacks, which add nothing to it.
void PrintCaveats(const std::string& path, const TraceSummary& trace) {
  for (const std::string& warning : trace.meta.warnings) {
    std::cerr << fmt::format("napiscope: warning: {}: {}\n", path, warning);
  }
  std::vector<std::string> not_run;
  for (const AnalysisAvailability& analysis : trace.analyses) {
    if (analysis.available) continue;
    not_run.push_back(
        fmt::format("{} (needs {})", analysis.title, fmt::join(analysis.missing_required, ", ")));
  }
  if (!not_run.empty()) {
    std::cerr << fmt::format("napiscope: {}: not analysed, for want of events: {}\n", path,
                             fmt::join(not_run, "; "));
  }
}

int RunExport(const ExportOptions& options) {
  AnalysisOptions analysis;
  std::string error;
  if (!options.flags.Apply(&analysis, &error)) return Fail("export", error);
  if (options.output.empty()) return Fail("export", "-o FILE is required (- for stdout)");
  if (options.output == "-" && isatty(STDOUT_FILENO)) {  // as gzip and zstd refuse
    return Fail("export",
                "-o -: standard output is a terminal, and a Perfetto trace is binary: "
                "redirect it (> trace.pftrace) or give -o FILE");
  }
  if (!CheckOutputIsNotAnInput(options.output, {options.path}, &error)) {
    return Fail("export", error);
  }
  bool show = !options.quiet && (options.progress || isatty(STDERR_FILENO));
  PerfettoExportStats stats;
  std::string path = options.path;
  if (!ResolveTraceArgument(&path, &error)) return Fail("", error);
  analysis.load.name = ShownPath(path);
  OutputFile out;
  absl::Status status = ResolveWindow(path, options.flags, &analysis);
  if (status.ok()) status = out.Open(options.output);
  if (status.ok()) {
    status = WithProgressBar(
        "napiscope: exporting " + analysis.load.name, show, &analysis.load,
        [&] { return ExportPerfettoTrace(path, out.write_path(), analysis, &stats); });
  }
  // Like the report: a window or CPU the trace lacks is an error, not an empty file.
  if (status.ok()) status = CheckWindowAndCpus(path, analysis, stats.trace);
  if (status.ok()) status = out.Commit();
  if (!status.ok()) return Fail("", out.Named(std::string(status.message())));
  if (options.quiet) return kExitClean;
  // Written to standard output, the file has no name to report or advise on; the caveats about
  // the trace still go to standard error.
  if (options.output != "-") {
    std::cerr << fmt::format(
        "napiscope: wrote {} ({} bytes): {}, {}, {}, {}, {}, {}\n", options.output, stats.bytes,
        Counted(stats.ftrace_events, "ftrace event"), Counted(stats.tracks, "track"),
        Counted(stats.slices, "slice"), Counted(stats.flows, "flow"),
        Counted(stats.findings, "finding"), Counted(stats.counter_values, "counter value"));
  }
  PrintCaveats(analysis.load.name, stats.trace);
  std::string advice =
      options.output == "-" ? "" : PerfettoOpeningAdvice(options.output, stats.bytes);
  if (!advice.empty()) std::cerr << "napiscope: " << advice << "\n";
  return kExitClean;
}

}  // namespace

void AddExportCommand(CLI::App& app, std::function<int()>* run) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export",
      "Write the trace and napiscope's analysis for another tool: --format perfetto writes a "
      "Perfetto trace (ui.perfetto.dev, trace_processor) with the events as ftrace events and "
      "softirq runs, hard IRQs, NAPI polls, lost time and findings as tracks");
  command->add_option("FILE", options->path, "trace.dat or ftrace text (- for stdin)")->required();
  command->add_option("--format", options->format, "perfetto (the only format so far)")
      ->capture_default_str()
      ->check(OneOf({"perfetto"}));
  command->add_option("-o,--output", options->output, "file to write (- for stdout)")->required();
  options->flags.AddTo(command);
  command->add_flag("--progress", options->progress,
                    "show the progress bar even when stderr is not a terminal");
  command->add_flag("-q,--quiet", options->quiet, "no progress bar and no summary line");
  command->footer(
      "Examples:\n  napiscope export -o trace.pftrace trace.dat\n"
      "  napiscope export --cpu 1 --from 1553.2 --to +200ms -o cpu1.pftrace trace.dat\n"
      "  trace_processor_shell trace.pftrace");
  command->callback([options, run] { *run = [options] { return RunExport(*options); }; });
}

}  // namespace napiscope::cli
