#include "cli_common.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "napiscope/check_config.h"
#include "napiscope/format.h"
#include "napiscope/loader.h"
#include "napiscope/suggest.h"
#include "napiscope/time_window.h"
#include "output_file.h"
#include "trace_arguments.h"

namespace napiscope::cli {
namespace {

bool ParseInt(std::string_view text, int* value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size() && *value >= 0;
}

std::vector<std::string_view> SplitOnComma(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string_view::npos; start = comma + 1) {
    parts.push_back(text.substr(start, comma - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

// A one-line bar redrawn in place on stderr, shown only once a load has run for a second.
class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled) : label_(std::move(label)), enabled_(enabled) {}
  ~ProgressBar() {
    if (drawn_) std::cerr << "\r\033[K" << std::flush;
  }

  void Update(double fraction) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(100)) {
      return;
    }
    last_draw_ = now;
    constexpr int kWidth = 30;
    int filled = std::clamp(static_cast<int>(fraction * kWidth), 0, kWidth);
    std::cerr << fmt::format("\r{} [{}{}] {:3.0f}%", label_, std::string(filled, '#'),
                             std::string(kWidth - filled, ' '), fraction * 100)
              << std::flush;
    drawn_ = true;
  }

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace

CLI::Validator WholeNumber(int64_t min, int64_t max) {
  // Bounds past an int's are the type's, not the option's: the help does not show them.
  bool shown_max = max < std::numeric_limits<int32_t>::max();
  std::string wanted = shown_max ? fmt::format("a whole number from {} to {}", min, max)
                                 : fmt::format("a whole number, {} or more", min);
  std::string description = shown_max  ? fmt::format("INT in [{} - {}]", min, max)
                            : min == 0 ? "NONNEGATIVE"
                            : min == 1 ? "POSITIVE"
                                       : fmt::format(">= {}", min);
  auto check = [min, max, wanted](std::string& text) -> std::string {
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool whole = error == std::errc() && end == text.data() + text.size() && !text.empty();
    if (whole && value >= min && value <= max) return "";
    if (whole && value > max) return fmt::format("wants at most {}, not '{}'", max, text);
    return fmt::format("wants {}, not '{}'", wanted, OneLine(text));
  };
  return CLI::Validator(check, description);
}

CLI::Validator OneOf(std::vector<std::string> choices) {
  std::string listed =
      choices.size() == 1
          ? choices.front()
          : fmt::format("{} or {}", fmt::join(choices.begin(), choices.end() - 1, ", "),
                        choices.back());
  std::string description = fmt::format("{{{}}}", fmt::join(choices, ","));
  auto check = [choices = std::move(choices), listed](std::string& text) -> std::string {
    if (std::find(choices.begin(), choices.end(), text) != choices.end()) return "";
    return fmt::format("wants {}, not '{}'{}", listed, OneLine(text), DidYouMean(text, choices));
  };
  return CLI::Validator(check, description);
}

CLI::Validator ColumnCount() { return WholeNumber(0, std::numeric_limits<int>::max()); }

CLI::Validator NumberAtLeast(double min) {
  auto check = [min](std::string& text) -> std::string {
    double value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool number = error == std::errc() && end == text.data() + text.size() && !text.empty() &&
                  std::isfinite(value);
    if (number && value >= min) return "";
    return fmt::format("wants a number, {} or more (like 10 or 2.5), not '{}'", min, OneLine(text));
  };
  return CLI::Validator(check, min == 0 ? "NONNEGATIVE" : fmt::format(">= {}", min));
}

bool ParseCpuList(std::string_view text, std::vector<int>* cpus) {
  constexpr int kMaxCpus = 8192;  // the kernel's largest NR_CPUS
  for (std::string_view part : SplitOnComma(text)) {
    size_t dash = part.find('-');
    int first, last;
    if (!ParseInt(part.substr(0, dash), &first)) return false;
    last = first;
    if (dash != std::string_view::npos && !ParseInt(part.substr(dash + 1), &last)) return false;
    if (last < first || last >= kMaxCpus) return false;
    for (int cpu = first; cpu <= last; ++cpu) cpus->push_back(cpu);
  }
  std::sort(cpus->begin(), cpus->end());
  cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
  return true;
}

void AnalysisFlags::AddTo(CLI::App* command) {
  command->add_option("--cpu", cpus, "only rows and findings of these CPUs, e.g. 0,2-3");
  command->add_option("--from", from,
                      "only what begins at or after this time: " + std::string(kTimeBoundSyntax));
  command->add_option("--to", to,
                      "only what begins at or before this time (same syntax; +DURATION counts "
                      "from the trace start, not from --from)");
  command
      ->add_option("--threads", threads,
                   "trace.dat threads in all: 0 one per core (default), 1 decodes on the "
                   "analysing thread, N adds N-1 decoding threads")
      ->check(WholeNumber(0, 256));
  AddBufferOption(command, &buffer);
}

void AddBufferOption(CLI::App* command, std::string* buffer) {
  command->add_option("--buffer", *buffer,
                      "the trace.dat buffer instance to read (trace-cmd record -B NAME); default "
                      "the top buffer, or the only instance with events when it has none");
}

bool AnalysisFlags::Apply(AnalysisOptions* analysis, std::string* error) const {
  analysis->load.threads = threads;
  analysis->load.buffer = buffer;
  TimeBound bound;
  std::string why;
  if (!cpus.empty() && !ParseCpuList(cpus, &analysis->cpus)) {
    *error = "--cpu wants a CPU list like 0,2-3, not '" + cpus + "'";
  } else if (!from.empty() && !ParseTimeBound(from, &bound, &why)) {
    *error = "--from: " + why;
  } else if (!to.empty() && !ParseTimeBound(to, &bound, &why)) {
    *error = "--to: " + why;
  } else {
    return true;
  }
  return false;
}

namespace {

// The first event's time, from a load cancelled at that event (the merge delivers the
// earliest event of all CPUs first).
class FirstEventSink : public EventSink {
 public:
  void OnEvent(const Event& event) override {
    if (seen_) return;
    seen_ = true;
    first_ts_ns_ = event.ts_ns;
    cancel_ = true;
  }
  bool seen_ = false;
  TimestampNs first_ts_ns_ = 0;
  std::atomic<bool> cancel_ = false;
};

absl::Status TraceStart(const std::string& path, const AnalysisFlags& flags,
                        TimestampNs* start_ns) {
  FirstEventSink sink;
  TraceContext context;
  LoadOptions load;
  load.threads = flags.threads;
  load.buffer = flags.buffer;
  load.cancel = &sink.cancel_;
  load.name = ShownPath(path);
  absl::Status status = LoadTrace(path, context, sink, load);
  if (!sink.seen_) {
    return status.ok()
               ? absl::InvalidArgumentError(load.name + ": the trace has no events to window")
               : status;
  }
  *start_ns = sink.first_ts_ns_;
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckWindowAndCpus(const std::string& path, const AnalysisOptions& analysis,
                                const TraceSummary& trace) {
  std::string error = CheckWindowAndCpusInTrace(analysis.window, analysis.cpus, "--cpu ", trace);
  if (error.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(ShownPath(path) + ": " + error);
}

// Offsets are read from the trace's first event by a load that stops there.
absl::Status ResolveWindow(const std::string& path, const AnalysisFlags& flags,
                           AnalysisOptions* analysis) {
  TimeBound from, to;
  std::string why;
  bool has_from = !flags.from.empty() && ParseTimeBound(flags.from, &from, &why);
  bool has_to = !flags.to.empty() && ParseTimeBound(flags.to, &to, &why);
  TimestampNs start_ns = 0;
  if ((has_from && from.from_trace_start) || (has_to && to.from_trace_start)) {
    if (absl::Status status = TraceStart(path, flags, &start_ns); !status.ok()) {
      return status;
    }
  }
  if (has_from) analysis->window.from_ns = ResolveTimeBound(from, start_ns);
  if (has_to) analysis->window.to_ns = ResolveTimeBound(to, start_ns);
  return absl::OkStatus();
}

absl::Status AnalyzeTraceWindowed(const std::string& path, const AnalysisFlags& flags,
                                  AnalysisOptions analysis, bool quiet, Report* report) {
  if (absl::Status status = ResolveWindow(path, flags, &analysis); !status.ok()) return status;
  if (absl::Status status = AnalyzeWithProgress(path, analysis, quiet, report); !status.ok()) {
    return status;
  }
  return CheckWindowAndCpus(path, analysis, report->trace);
}

absl::Status LoadHtmlTraceWindowed(const std::string& path, const AnalysisFlags& flags,
                                   AnalysisOptions analysis, bool quiet, HtmlTrace* trace) {
  if (absl::Status status = ResolveWindow(path, flags, &analysis); !status.ok()) return status;
  if (absl::Status status = LoadHtmlWithProgress(path, analysis, quiet, trace); !status.ok()) {
    return status;
  }
  return CheckWindowAndCpus(path, analysis, trace->report.trace);
}

namespace {

// Runs `work`, a load of `path`, under the bar "napiscope: reading NAME", the load naming the
// trace as the user gave it (ShownPath).
absl::Status Reading(const std::string& path, bool quiet, LoadOptions* load,
                     const std::function<absl::Status()>& work) {
  load->name = ShownPath(path);
  return WithProgressBar("napiscope: reading " + load->name, !quiet && isatty(STDERR_FILENO), load,
                         work);
}

}  // namespace

absl::Status AnalyzeWithProgress(const std::string& path, AnalysisOptions analysis, bool quiet,
                                 Report* report) {
  return Reading(path, quiet, &analysis.load, [&] { return AnalyzeTrace(path, analysis, report); });
}

absl::Status LoadHtmlWithProgress(const std::string& path, AnalysisOptions analysis, bool quiet,
                                  HtmlTrace* trace) {
  return Reading(path, quiet, &analysis.load, [&] { return LoadHtmlTrace(path, analysis, trace); });
}

size_t TextWidth(int requested, size_t fallback) {
  if (requested >= 0) return static_cast<size_t>(requested);
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  // Piped into a pager or a CI log, the width the user exported (as ls and Python do).
  int columns = 0;
  if (const char* value = std::getenv("COLUMNS");
      value != nullptr && ParseInt(value, &columns) && columns > 0) {
    return static_cast<size_t>(columns);
  }
  return fallback;
}

size_t TextWidthFor(const std::string& output, int requested, size_t fallback) {
  if (output.empty() || output == "-") return TextWidth(requested, fallback);
  return requested >= 0 ? static_cast<size_t>(requested) : fallback;
}

absl::Status WithProgressBar(const std::string& label, bool show, LoadOptions* load,
                             const std::function<absl::Status()>& work) {
  ProgressBar bar(label, show);
  load->progress = [&bar](double fraction) { bar.Update(fraction); };
  absl::Status status = work();
  load->progress = nullptr;
  return status;
}

absl::Status LoadWithProgress(const std::string& path, TraceContext& context, EventSink& sink,
                              LoadOptions load, bool quiet) {
  return Reading(path, quiet, &load, [&] { return LoadTrace(path, context, sink, load); });
}

bool WriteOutput(const std::string& path, const std::string& content, std::string* error) {
  if (path.empty() || path == "-") {
    std::cout << content << std::flush;
    return true;
  }
  OutputFile out;
  absl::Status status = out.Open(path);
  if (status.ok()) {
    std::ofstream file(out.write_path(), std::ios::binary);
    if (file) file << content;
    if (!file.flush()) {
      status = absl::InternalError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    }
  }
  if (status.ok()) status = out.Commit();
  if (status.ok()) return true;
  *error = std::string(status.message());
  return false;
}

absl::Status ApplyThresholdSettings(const std::vector<std::string>& settings,
                                    Thresholds* thresholds) {
  for (const std::string& setting : settings) {
    size_t equals = setting.find('=');
    absl::Status status =
        equals == std::string::npos
            ? absl::InvalidArgumentError("--threshold wants KEY=VALUE, not '" + setting + "'")
            : SetThreshold(setting.substr(0, equals), setting.substr(equals + 1), thresholds);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

bool CheckWritable(const std::string& path, std::string* error) {
  if (path.empty() || path == "-") return true;
  struct stat info {};
  const bool existed = stat(path.c_str(), &info) == 0;
  if (existed && S_ISDIR(info.st_mode)) {
    *error = fmt::format("{}: is a directory, not a file", path);
    return false;
  }
  // Devices and pipes are written in place; opening a pipe here would wait for its reader.
  if (existed && !S_ISREG(info.st_mode)) return true;
  int fd = open(path.c_str(), existed ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                0644);
  if (fd < 0) {
    *error = fmt::format("{}: cannot write: {}", path, std::strerror(errno));
    return false;
  }
  close(fd);
  if (!existed) unlink(path.c_str());
  return true;
}

bool CheckOutputIsNotAnInput(const std::string& output, const std::vector<std::string>& inputs,
                             std::string* error) {
  struct stat out {};
  if (output.empty() || output == "-" || stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) {
    return true;
  }
  for (const std::string& input : inputs) {
    struct stat in {};
    if (stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      *error =
          input == output
              ? fmt::format("{}: -o names a file this command reads; choose another output", output)
              : fmt::format(
                    "{}: -o names {}, which this command reads; choose another "
                    "output",
                    output, input);
      return false;
    }
  }
  return true;
}

bool CheckOutput(const std::string& output, const std::vector<std::string>& inputs,
                 std::string* error) {
  return CheckOutputIsNotAnInput(output, inputs, error) && CheckWritable(output, error);
}

int Fail(std::string_view command, std::string_view message) {
  // One line whatever the message quotes (a file name with a newline in it).
  std::cerr << "napiscope" << (command.empty() ? "" : " ") << command << ": " << OneLine(message)
            << "\n";
  return kExitError;
}

}  // namespace napiscope::cli
