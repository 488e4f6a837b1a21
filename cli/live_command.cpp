#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "capture_args.h"
#include "cli_common.h"
#include "commands.h"
#include "live_summary.h"
#include "napiscope/format.h"
#include "napiscope/json_text.h"
#include "napiscope/live.h"
#include "napiscope/report_render.h"
#include "napiscope/tracedat_writer.h"
#include "output_file.h"

namespace napiscope::cli {
namespace {

struct LiveArgs {
  int64_t interval_ns = kSecondNs;
  int64_t duration_ns = 0;  // 0: until Ctrl-C
  CaptureArgs capture;
  bool json_lines = false;
  std::string fail_on;
  std::vector<std::string> thresholds;  // KEY=VALUE, as in check
  std::string save_on_fail;  // trace.dat to write when --fail-on trips
  int64_t keep_ns = 10 * kSecondNs;  // time of pages kept for it
  int64_t keep_mb = 256;     // memory they may take
  int width = -1;            // -1: the terminal's width on a terminal, else unwrapped
  int top = 16;              // CPUs a text summary shows; 0: all
};

// As often as record reads: at a flood's rate, 100 ms filled most of a 4 MiB buffer.
constexpr auto kPollPeriod = std::chrono::milliseconds(20);

std::optional<Severity> ParseSeverity(const std::string& name) {
  for (Severity severity : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (name == SeverityName(severity)) return severity;
  }
  return std::nullopt;
}

// "napiscope live: saved the last 9.87 s (...) to FILE": where the trace went and what it holds.
std::string SavedSpanLine(const std::string& path, const SavedTraceSpan& span) {
  std::string line = fmt::format(
      "napiscope live: saved the last {} before the failure to {} ({} events, {} to {} s on "
      "the monotonic clock, {} pages, {:.1f} MiB)",
      FormatDuration(span.last_ns - span.first_ns), path, span.events,
      FormatTimestamp(span.first_ns), FormatTimestamp(span.last_ns), span.pages,
      static_cast<double>(span.file_bytes) / (1 << 20));
  if (span.pages_dropped_for_memory > 0) {
    line += fmt::format("; {} older pages went to stay within --keep-mb",
                        span.pages_dropped_for_memory);
  }
  return line + "\n";
}

int RunLive(const LiveArgs& args) {
  LiveOptions options;
  std::string error;
  if (!ResolveCaptureArgs(args.capture, &options.capture, &error)) {
    std::cerr << "napiscope live: " << error << "\n";
    return kExitError;
  }
  std::optional<Severity> fail_on;
  if (!args.fail_on.empty()) fail_on = ParseSeverity(args.fail_on);  // checked by OneOf
  absl::Status applied = ApplyThresholdSettings(args.thresholds, &options.analysis.thresholds);
  if (!applied.ok()) return Fail("live", std::string(applied.message()));
  if (!args.save_on_fail.empty()) {
    if (!CheckWritable(args.save_on_fail, &error)) return Fail("live", error);
    absl::Status usable = RequireFileOutput(args.save_on_fail);
    if (!usable.ok()) return Fail("live", std::string(usable.message()));
    options.keep_ns = args.keep_ns;
    options.keep_max_bytes = static_cast<size_t>(args.keep_mb) << 20;
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
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(args.interval_ns));
  const auto duration =
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(args.duration_ns));
  Clock::time_point next_print = start + interval;
  double printed_s = 0;  // when the summary before was printed, and the events by then
  int64_t printed_events = 0;
  auto print = [&](const Report& report, bool final) {
    LiveSummaryInput input{.report = &report,
                           .napi = &capture->napi_counts(),
                           .elapsed_s = std::chrono::duration<double>(Clock::now() - start).count(),
                           .events = capture->events(),
                           .previous_elapsed_s = printed_s,
                           .previous_events = printed_events,
                           .instance = options.capture.instance_name,
                           .final = final,
                           .width = TextWidth(args.width, 0),
                           .shown_cpus = static_cast<size_t>(args.top)};
    printed_s = input.elapsed_s;
    printed_events = input.events;
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
  bool caught_up = false;  // behind the kernel (and at the start), the next poll comes at once
  while (!StopRequested().load() && (args.duration_ns <= 0 || Clock::now() - start < duration)) {
    if (caught_up) {
      Clock::time_point wake = std::min(Clock::now() + kPollPeriod, next_print);
      if (args.duration_ns > 0) wake = std::min(wake, start + duration);
      std::this_thread::sleep_until(wake);
    }
    absl::StatusOr<bool> polled = capture->Poll();
    if (!polled.ok()) {
      std::cerr << "napiscope live: " << polled.status().message() << "\n";
      return kExitError;
    }
    caught_up = *polled;
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
  if (!args.json_lines) {
    TextReportOptions text;
    text.width = TextWidth(args.width, text.width);
    std::cout << "\n" << ReportToText(report, text);
  }
  if (failed && !args.save_on_fail.empty()) {
    // Whole or not at all, as every command's output (output_file.h).
    SavedTraceSpan span;
    OutputFile out;
    status = out.Open(args.save_on_fail);
    if (status.ok()) status = capture->SaveRecent(out.write_path(), &span);
    if (status.ok()) status = out.Commit();
    if (!status.ok()) return Fail("live", out.Named(std::string(status.message())));
    std::cerr << SavedSpanLine(args.save_on_fail, span) << std::flush;
  }
  return failed ? kExitFindings : kExitClean;
}

}  // namespace

void AddLiveCommand(CLI::App& app, std::function<int()>* run) {
  auto args = std::make_shared<LiveArgs>();
  CLI::App* live = app.add_subcommand(
      "live", "Trace and analyse at the same time, printing a summary every interval; Ctrl-C "
              "prints the full report; needs root");
  AddSecondsOption(live, "--interval", &args->interval_ns, "time between summaries", kSecondNs / 10,
                   3600 * kSecondNs)
      ->default_str("1");
  AddSecondsOption(live, "--duration", &args->duration_ns, "stop after this time (default: Ctrl-C)",
                   1, std::numeric_limits<int64_t>::max());
  AddCaptureFlags(live, &args->capture, "napiscope");
  live->add_flag("--json-lines", args->json_lines,
                 "print one napiscope.live/1 JSON object per interval (and a final one)");
  live->add_option("--top", args->top,
                   "on a machine with more CPUs, each summary shows the N with the most blocked "
                   "ksoftirqd and the longest raise-to-entry p99, worst first, and one line for "
                   "the others, and as many IRQ/NAPI threads, the most cross-CPU first (0: all; "
                   "JSON lines have them all)")
      ->default_str("16")
      ->check(WholeNumber(0, std::numeric_limits<int>::max()));
  live->add_option("--width", args->width,
                   "fit the summaries and the final report to N columns (default: the "
                   "terminal's width on a terminal, else COLUMNS; without either summaries "
                   "unwrapped, the report at 120; 0: never wrap)")
      ->check(ColumnCount());
  CLI::Option* fail_on = live->add_option("--fail-on", args->fail_on,
                                          "stop with exit code 2 at the first finding of this "
                                          "severity")
                             ->check(OneOf({"info", "warning", "error"}));
  live->add_option("-t,--threshold", args->thresholds,
                   "KEY=VALUE as in check, e.g. softirq_latency_p99_warning_ns=200us (see "
                   "napiscope check --list-thresholds)")
      ->allow_extra_args(false);
  CLI::Option* save = live->add_option("--save-on-fail", args->save_on_fail,
                                       "when --fail-on trips, write the last --keep seconds of "
                                       "events to this trace.dat (opens in report, the GUI and "
                                       "trace-cmd)")
                          ->type_name("FILE")
                          ->needs(fail_on);
  AddSecondsOption(live, "--keep", &args->keep_ns, "time of events --save-on-fail keeps",
                   kSecondNs / 10, 3600 * kSecondNs)
      ->default_str("10")
      ->needs(save);
  live->add_option("--keep-mb", args->keep_mb,
                   "MiB --save-on-fail may keep; the oldest pages go beyond it")
      ->type_name("MIB")
      ->capture_default_str()
      ->check(WholeNumber(1, int64_t{1} << 20))
      ->needs(save);
  live->footer(
      "Examples:\n  napiscope live\n  napiscope live --interval 5 --fail-on warning\n"
      "  napiscope live --fail-on warning --save-on-fail stall.dat --keep 5\n"
      "  napiscope live --duration 10 --json-lines | jq .cpus\n" +
      PresetsHelp());
  live->callback([args, run] { *run = [args] { return RunLive(*args); }; });
}

}  // namespace napiscope::cli
