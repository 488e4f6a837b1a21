#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "napiscope/info_report.h"
#include "napiscope/json_text.h"
#include "napiscope/loader.h"
#include "napiscope/trace_summary.h"

namespace napiscope::cli {
namespace {

struct InfoOptions {
  std::string path;
  bool json = false;
  int threads = 0;
};

int RunInfo(const InfoOptions& options) {
  TraceContext context;
  TraceSummaryBuilder summary;
  LoadOptions load;
  load.threads = options.threads;
  absl::Status status = LoadTrace(options.path, context, summary, load);
  if (!status.ok()) {
    std::cerr << "napiscope: " << status.message() << "\n";
    return kExitError;
  }
  TraceSummary result = summary.Finish(context);
  if (options.json) {
    std::cout << JsonText(InfoToJson(result), 2) << "\n";
  } else {
    std::cout << InfoToText(result);
  }
  return kExitClean;
}

}  // namespace

void AddInfoCommand(CLI::App& app, std::function<int()>* run) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand(
      "info", "What a trace holds: format, CPUs, span, event counts, missed events, and which "
              "analyses its events allow");
  info->add_option("FILE", options->path, "trace.dat or ftrace text")->required();
  info->add_flag("--json", options->json, "print the napiscope.info/1 JSON object");
  info->add_option("--threads", options->threads,
                   "trace.dat threads in all: 0 one per core (default), 1 decodes on the "
                   "counting thread, N adds N-1 decoding threads")
      ->check(CLI::Range(0, 256));
  info->footer("Example:\n  napiscope info trace.dat\n  napiscope info --json trace.dat | jq .event_counts");
  info->callback([options, run] { *run = [options] { return RunInfo(*options); }; });
}

}  // namespace napiscope::cli
