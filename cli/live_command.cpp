#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "capture_args.h"
#include "commands.h"
#include "live_summary.h"
#include "napiscope/json_text.h"
#include "napiscope/live.h"
#include "napiscope/report_render.h"

namespace napiscope::cli {
namespace {

struct LiveArgs {
  double interval_s = 1;
  double duration_s = 0;
  CaptureArgs capture;
  bool json_lines = false;
  std::string fail_on;
};

constexpr auto kPollPeriod = std::chrono::milliseconds(100);

std::optional<Severity> ParseSeverity(const std::string& name) {
  for (Severity severity : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (name == SeverityName(severity)) return severity;
  }
  return std::nullopt;
}

int RunLive(const LiveArgs& args) {
  LiveOptions options;
  std::string error;
  if (!ResolveCaptureArgs(args.capture, &options.capture, &error)) {
    std::cerr << "napiscope live: " << error << "\n";
    return kExitError;
  }
  std::optional<Severity> fail_on;
  if (!args.fail_on.empty() && !(fail_on = ParseSeverity(args.fail_on))) {
    std::cerr << "napiscope live: --fail-on wants info, warning or error, not '" << args.fail_on
              << "'\n";
    return kExitError;
  }
  InstallStopSignals(options.capture.instance_name);
  auto started = LiveCapture::Start(options);
  if (!started.ok()) {
    std::cerr << "napiscope live: " << started.status().message() << "\n";
    return kExitError;
  }
  std::unique_ptr<LiveCapture> capture = std::move(*started);
  if (!capture->events_missing().empty()) {
    std::cerr << "napiscope live: not on this kernel, skipped:";
    for (const std::string& event : capture->events_missing()) std::cerr << " " << event;
    std::cerr << "\n";
  }
  const bool refresh = !args.json_lines && isatty(STDOUT_FILENO);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(args.interval_s));
  const auto duration = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(args.duration_s));
  Clock::time_point next_print = start + interval;
  auto print = [&](const Report& report, bool final) {
    LiveSummaryInput input{&report, &capture->napi_counts(),
                           std::chrono::duration<double>(Clock::now() - start).count(),
                           capture->events(), options.capture.instance_name, final};
    if (args.json_lines) {
      std::cout << JsonText(LiveSummaryJson(input)) << std::endl;
    } else {
      std::cout << (refresh ? "\x1b[H\x1b[2J" : "\n") << LiveSummaryText(input) << std::flush;
    }
  };
  auto reached = [&](const Report& report) {
    return fail_on && std::any_of(report.findings.begin(), report.findings.end(),
                                  [&](const Finding& f) { return f.severity >= *fail_on; });
  };

  bool failed = false;
  while (!StopRequested().load() && (args.duration_s <= 0 || Clock::now() - start < duration)) {
    Clock::time_point wake = std::min(Clock::now() + kPollPeriod, next_print);
    if (args.duration_s > 0) wake = std::min(wake, start + duration);
    std::this_thread::sleep_until(wake);
    absl::Status status = capture->Poll();
    if (!status.ok()) {
      std::cerr << "napiscope live: " << status.message() << "\n";
      return kExitError;
    }
    if (Clock::now() >= next_print) {
      next_print += interval;
      Report report = capture->Snapshot();
      print(report, false);
      if (reached(report)) {
        failed = true;
        break;
      }
    }
  }
  absl::Status status = capture->Stop();
  if (!status.ok()) {
    std::cerr << "napiscope live: " << status.message() << "\n";
    return kExitError;
  }
  Report report = capture->Snapshot();
  failed = failed || reached(report);
  print(report, true);
  if (!args.json_lines) std::cout << "\n" << ReportToText(report);
  return failed ? kExitFindings : kExitClean;
}

}  // namespace

void AddLiveCommand(CLI::App& app, std::function<int()>* run) {
  auto args = std::make_shared<LiveArgs>();
  CLI::App* live = app.add_subcommand(
      "live", "Trace and analyse at the same time, printing a summary every interval; Ctrl-C "
              "prints the full report; needs root");
  live->add_option("--interval", args->interval_s, "seconds between summaries")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  live->add_option("--duration", args->duration_s, "stop after this many seconds (default: "
                                                   "Ctrl-C)")
      ->check(CLI::PositiveNumber);
  AddCaptureFlags(live, &args->capture, "napiscope");
  live->add_flag("--json-lines", args->json_lines,
                 "print one napiscope.live/1 JSON object per interval (and a final one)");
  live->add_option("--fail-on", args->fail_on,
                   "stop with exit code 2 at the first finding of this severity "
                   "(info, warning, error)");
  live->footer(
      "Examples:\n  napiscope live\n  napiscope live --interval 5 --fail-on warning\n"
      "  napiscope live --duration 10 --json-lines | jq .cpus");
  live->callback([args, run] { *run = [args] { return RunLive(*args); }; });
}

}  // namespace napiscope::cli
