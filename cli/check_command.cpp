#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "commands.h"
#include "napiscope/check_config.h"
#include "napiscope/check_render.h"
#include "napiscope/json_text.h"
#include "napiscope/report_html.h"
#include "napiscope/text_wrap.h"
#include "trace_arguments.h"

namespace napiscope::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> paths;
  std::string config;
  std::string fail_on;
  std::vector<std::string> thresholds;  // KEY=VALUE
  std::vector<std::string> formats;
  std::vector<std::string> outputs;
  AnalysisFlags flags;
  bool quiet = false;
  bool allow_data_loss = false;
  bool list_thresholds = false;
  int width = -1;  // -1: the terminal's width on a terminal, else one line per finding
};

// The threshold keys, their defaults and meanings, the meanings wrapped at `width` columns (0:
// one line per key) under their column.
std::string ThresholdList(size_t width) {
  Thresholds defaults;
  size_t key_width = std::string_view("threshold").size();
  for (const ThresholdKey& key : ThresholdKeys()) key_width = std::max(key_width, key.key.size());
  std::string text =
      "Keys of [thresholds] in a --config file, or of -t KEY=VALUE:\n" +
      fmt::format("{:<{}}  {:<9} {}\n", "threshold", key_width, "default", "meaning");
  for (const ThresholdKey& key : ThresholdKeys()) {
    std::string columns =
        fmt::format("{:<{}}  {:<9} ", key.key, key_width, ThresholdValueText(key, defaults));
    text += WrapWords(std::string(key.description) + (key.by_vec ? " (also per vector)" : ""),
                      width, columns, std::string(columns.size(), ' '));
  }
  return text;
}

std::string Render(const std::string& format, const std::vector<TraceCheck>& checks,
                   const std::vector<std::string>& html_sections, Severity fail_on, size_t width) {
  if (format == "html") return ChecksToHtml(checks, html_sections, fail_on);
  if (format == "json") return JsonText(ChecksToJson(checks, fail_on), 2) + "\n";
  if (format == "junit") return ChecksToJUnit(checks, fail_on);
  if (format == "markdown") return ChecksToMarkdown(checks, fail_on);
  return ChecksToText(checks, fail_on, width);
}

int RunCheck(const CheckOptions& options) {
  if (options.list_thresholds) {
    std::cout << ThresholdList(TextWidth(options.width, 0));
    return kExitClean;
  }
  if (options.paths.empty()) return Fail("check", "FILE is required");
  std::vector<std::string> formats = options.formats;
  if (formats.empty()) formats.push_back("text");
  if (options.outputs.size() > formats.size() ||
      (formats.size() > 1 && options.outputs.size() != formats.size())) {
    return Fail("check", "give one --output per --format (or one --format for stdout)");
  }
  if (std::count(options.outputs.begin(), options.outputs.end(), "-") > 1) {
    return Fail("check", "one --format at most goes to stdout (-o -): give the others files");
  }
  CheckConfig config;
  if (!options.config.empty()) {
    absl::Status status = LoadCheckConfig(options.config, &config);
    if (!status.ok()) return Fail("check", std::string(status.message()));
  }
  if (!options.fail_on.empty()) ParseSeverity(options.fail_on, &config.fail_on);
  if (options.allow_data_loss) config.allow_data_loss = true;
  absl::Status applied = ApplyThresholdSettings(options.thresholds, &config.thresholds);
  if (!applied.ok()) return Fail("check", std::string(applied.message()));
  AnalysisOptions analysis;
  analysis.thresholds = config.thresholds;
  std::string error;
  if (!options.flags.Apply(&analysis, &error)) return Fail("check", error);
  std::vector<std::string> inputs = options.paths;
  if (!options.config.empty()) inputs.push_back(options.config);
  for (const std::string& output : options.outputs) {
    if (!CheckOutput(output, inputs, &error)) return Fail("check", error);
  }

  // Each error is printed once: on stderr, unless the text summary on stdout carries it.
  bool text_on_stdout = false, stdout_taken = false;
  for (size_t i = 0; i < formats.size(); ++i) {
    bool to_stdout = i >= options.outputs.size() || options.outputs[i] == "-";
    stdout_taken = stdout_taken || to_stdout;
    text_on_stdout = text_on_stdout || (to_stdout && formats[i] == "text");
  }
  text_on_stdout = text_on_stdout || (!stdout_taken && !options.quiet);

  std::vector<TraceCheck> checks;
  // HTML draws each trace's timelines: its section is rendered while the timeline is loaded.
  bool html = std::find(formats.begin(), formats.end(), "html") != formats.end();
  std::vector<std::string> html_sections;
  bool unreadable = false, failed = false;
  for (std::string path : options.paths) {
    TraceCheck& check = checks.emplace_back();
    check.data_loss_fails = !config.allow_data_loss;
    bool readable = ResolveTraceArgument(&path, &error);
    check.path = ShownPath(path);
    auto view = std::make_unique<HtmlTrace>();
    if (!readable) {
      check.status = absl::InvalidArgumentError(error);
    } else if (html) {
      check.status =
          LoadHtmlTraceWindowed(path, options.flags, analysis, options.quiet, view.get());
      if (check.status.ok()) check.report = view->report;
    } else {
      check.status =
          AnalyzeTraceWindowed(path, options.flags, analysis, options.quiet, &check.report);
    }
    if (!check.status.ok()) {
      check.report = Report();
      if (!text_on_stdout) std::cerr << "napiscope: " << check.status.message() << "\n";
    }
    if (html) {
      HtmlTraceView shown = view->View();
      html_sections.push_back(HtmlCheckSection(check, check.status.ok() ? &shown : nullptr,
                                               config.fail_on, checks.size() - 1));
    }
    unreadable = unreadable || !check.status.ok();
    failed = failed || JudgeCheck(check, config.fail_on).failed;
  }

  bool stdout_used = false;
  for (size_t i = 0; i < formats.size(); ++i) {
    std::string path = i < options.outputs.size() ? options.outputs[i] : "-";
    stdout_used = stdout_used || path == "-";
    size_t width = TextWidthFor(path, options.width, 0);
    if (!WriteOutput(path, Render(formats[i], checks, html_sections, config.fail_on, width),
                     &error)) {
      return Fail("check", error);
    }
  }
  if (!stdout_used && !options.quiet) {
    std::cout << ChecksToText(checks, config.fail_on, TextWidth(options.width, 0));
  }
  return unreadable ? kExitError : failed ? kExitFindings : kExitClean;
}

}  // namespace

void AddCheckCommand(CLI::App& app, std::function<int()>* run) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Judge traces for CI: run the analyses and exit 0 when no finding reaches --fail-on, 2 "
      "when one does or the loader warned that data was lost (see --allow-data-loss), 1 on an "
      "error (unreadable trace, bad config). Each trace is reported separately; JUnit has a "
      "testcase 'load' and one per rule per trace");
  check->add_option("FILE", options->paths, "trace.dat or ftrace text files (- for stdin)");
  check->add_option("-c,--config", options->config,
                    "napiscope.toml (or .json): fail_on and a [thresholds] table");
  check
      ->add_option("--fail-on", options->fail_on,
                   "severity that fails a trace: warning (default) or error")
      ->check(OneOf({"warning", "error"}));
  check
      ->add_option("-t,--threshold", options->thresholds,
                   "KEY=VALUE, over the config; e.g. softirq_latency_p99_warning_ns=500us or "
                   "NET_RX.softirq_latency_max_error_ns=2ms (see --list-thresholds)")
      ->allow_extra_args(false);
  check
      ->add_option("-f,--format", options->formats,
                   "text (default), json (napiscope.check/1), junit, markdown or html (one "
                   "self-contained page); repeat with --output to write several")
      ->allow_extra_args(false)
      ->check(OneOf({"text", "json", "junit", "markdown", "html"}));
  check
      ->add_option("-o,--output", options->outputs,
                   "file for the --format at the same position (- for stdout); the text "
                   "summary still goes to stdout unless --quiet")
      ->allow_extra_args(false);
  options->flags.AddTo(check);
  check
      ->add_option("--width", options->width,
                   "wrap each finding's sentence, and the meanings --list-thresholds prints, at "
                   "N columns (default: the terminal's width on a terminal, else COLUMNS; "
                   "without either, and 0, one line per finding)")
      ->check(ColumnCount());
  check->add_flag("--allow-data-loss", options->allow_data_loss,
                  "pass a trace the loader warned about (records skipped, data lost or suspect) "
                  "on its findings alone; by default such a trace fails. The warnings are shown "
                  "either way (allow_data_loss = true in the config)");
  check->add_flag("-q,--quiet", options->quiet,
                  "no progress bar, and no text summary when every format goes to a file");
  check->add_flag("--list-thresholds", options->list_thresholds,
                  "print the threshold keys, their defaults and meaning, and exit");
  check->footer(
      "Examples:\n"
      "  napiscope check trace.dat\n"
      "  napiscope check --fail-on error -t ksoftirqd_blocked_warning_ns=2ms *.dat\n"
      "  napiscope check --config napiscope.toml -f junit -o napiscope.xml \\\n"
      "      -f markdown -o napiscope.md -f html -o napiscope.html trace.dat\n\n"
      "napiscope.toml:\n"
      "  fail_on = \"warning\"\n"
      "  allow_data_loss = false\n"
      "  [thresholds]\n"
      "  softirq_latency_p99_warning_ns = \"500us\"\n"
      "  pingpong_cross_share_warning = 0.2\n"
      "  [thresholds.NET_RX]\n"
      "  softirq_latency_max_error_ns = \"2ms\"");
  check->callback([options, run] { *run = [options] { return RunCheck(*options); }; });
}

}  // namespace napiscope::cli
