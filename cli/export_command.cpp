#include <unistd.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/perfetto_export.h"
#include "output_file.h"

namespace napiscope::cli {
namespace {

struct ExportOptions {
  std::string path;
  std::string format;
  std::string output;
  AnalysisFlags flags;
  bool progress = false;
  bool quiet = false;
};

int RunExport(const ExportOptions& options) {
  AnalysisOptions analysis;
  std::string error;
  if (!options.flags.Apply(&analysis, &error)) return Fail("export", error);
  if (options.output.empty()) return Fail("export", "-o FILE is required (- for stdout)");
  bool show = !options.quiet && (options.progress || isatty(STDERR_FILENO));
  PerfettoExportStats stats;
  OutputFile out;
  absl::Status status = ResolveWindow(options.path, options.flags, &analysis);
  if (status.ok()) status = out.Open(options.output);
  if (status.ok()) {
    status = WithProgressBar("napiscope: exporting " + options.path, show, &analysis.load, [&] {
      return ExportPerfettoTrace(options.path, out.write_path(), analysis, &stats);
    });
  }
  // Like the report: a window or CPU the trace lacks is an error, not an empty file.
  if (status.ok()) status = CheckWindowAndCpus(options.path, analysis, stats.trace);
  if (status.ok()) status = out.Commit();
  if (!status.ok()) return Fail("", out.Named(std::string(status.message())));
  if (!options.quiet && options.output != "-") {
    std::cerr << fmt::format(
        "napiscope: wrote {} ({} bytes): {} ftrace events, {} tracks, {} slices, {} flows, "
        "{} findings, {} counter values\n",
        options.output, stats.bytes, stats.ftrace_events, stats.tracks, stats.slices, stats.flows,
        stats.findings, stats.counter_values);
    std::string advice = PerfettoOpeningAdvice(options.output, stats.bytes);
    if (!advice.empty()) std::cerr << "napiscope: " << advice << "\n";
  }
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
  command->add_option("FILE", options->path, "trace.dat or ftrace text")->required();
  command->add_option("--format", options->format, "perfetto (the only format so far)")
      ->required()
      ->check(CLI::IsMember({"perfetto"}));
  command->add_option("-o,--output", options->output, "file to write (- for stdout)")->required();
  options->flags.AddTo(command);
  command->add_flag("--progress", options->progress,
                    "show the progress bar even when stderr is not a terminal");
  command->add_flag("-q,--quiet", options->quiet, "no progress bar and no summary line");
  command->footer(
      "Examples:\n  napiscope export --format perfetto -o trace.pftrace trace.dat\n"
      "  napiscope export --format perfetto --cpu 1 --from 1553.2 --to 1553.4 -o cpu1.pftrace "
      "trace.dat\n  trace_processor_shell trace.pftrace");
  command->callback([options, run] { *run = [options] { return RunExport(*options); }; });
}

}  // namespace napiscope::cli
