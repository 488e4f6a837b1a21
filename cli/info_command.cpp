#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/analysis_requirements.h"
#include "napiscope/info_report.h"
#include "napiscope/json_text.h"
#include "napiscope/loader.h"
#include "napiscope/trace_summary.h"
#include "trace_arguments.h"

namespace napiscope::cli {
namespace {

struct InfoOptions {
  std::string path;
  std::string format = "text";
  bool json = false;  // --json, the older spelling of --format json
  int threads = 0;
  std::string buffer;
  bool quiet = false;
  int width = -1;  // -1: the terminal's width on a terminal, else the default
};

int RunInfo(const InfoOptions& options) {
  TraceContext context;
  TraceSummaryBuilder summary;
  LoadOptions load;
  load.threads = options.threads;
  load.buffer = options.buffer;
  load.decoding_threads_merge = false;  // counting is lighter than decoding
  std::string path = options.path;
  std::string error;
  if (!ResolveTraceArgument(&path, &error)) return Fail("", error);
  absl::Status status = LoadWithProgress(path, context, summary, load, options.quiet);
  if (!status.ok()) return Fail("", std::string(status.message()));
  TraceSummary result = FinishSummary(summary, context);
  if (options.json || options.format == "json") {
    std::cout << JsonText(InfoToJson(result), 2) << "\n";
  } else {
    std::cout << InfoToText(result, TextWidth(options.width, 120));
  }
  return kExitClean;
}

}  // namespace

void AddInfoCommand(CLI::App& app, std::function<int()>* run) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand(
      "info", "What a trace holds: format, CPUs, span, event counts, missed events, and which "
              "analyses its events allow");
  info->add_option("FILE", options->path, "trace.dat or ftrace text (- for stdin)")->required();
  info->add_option("--format", options->format, "text (default) or json (napiscope.info/2)")
      ->check(OneOf({"text", "json"}));
  info->add_flag("--json", options->json, "the same as --format json");
  info->add_flag("-q,--quiet", options->quiet, "no progress bar");
  info->add_option("--width", options->width,
                   "fit the events-by-name table to N columns (default: the terminal's width, "
                   "else COLUMNS, else 120; 0: a column per CPU up to 64 CPUs)")
      ->check(ColumnCount());
  info->add_option("--threads", options->threads,
                   "trace.dat threads in all: 0 one per core (default), 1 decodes on the "
                   "counting thread, N adds N-1 decoding threads")
      ->check(WholeNumber(0, 256));
  AddBufferOption(info, &options->buffer);
  info->footer(
      "Examples:\n  napiscope info trace.dat\n"
      "  napiscope info --format json trace.dat | jq .event_counts");
  info->callback([options, run] { *run = [options] { return RunInfo(*options); }; });
}

}  // namespace napiscope::cli
