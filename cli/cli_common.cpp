#include "cli_common.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "napiscope/format.h"

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
                      "only what begins at or after this trace time (seconds, as trace-cmd "
                      "prints them, or with a unit: 1553278955000ns)");
  command->add_option("--to", to, "only what begins at or before this trace time");
  command->add_option("--threads", threads,
                      "trace.dat threads in all: 0 one per core (default), 1 decodes on the "
                      "analysing thread, N adds N-1 decoding threads")
      ->check(CLI::Range(0, 256));
}

bool AnalysisFlags::Apply(AnalysisOptions* analysis, std::string* error) const {
  analysis->load.threads = threads;
  if (!cpus.empty() && !ParseCpuList(cpus, &analysis->cpus)) {
    *error = "--cpu wants a CPU list like 0,2-3, not '" + cpus + "'";
  } else if (!from.empty() && !ParseTimestamp(from, &analysis->window.from_ns)) {
    *error = "--from wants a trace time like 1553.278955 or 1553278955000ns, not '" + from + "'";
  } else if (!to.empty() && !ParseTimestamp(to, &analysis->window.to_ns)) {
    *error = "--to wants a trace time like 1553.278955 or 1553278955000ns, not '" + to + "'";
  } else if (analysis->window.to_ns < analysis->window.from_ns) {
    *error = "--to is before --from";
  } else {
    return true;
  }
  return false;
}

std::string CheckCpusExist(const AnalysisOptions& analysis, const Report& report) {
  int cpus = report.trace.meta.cpus;
  if (analysis.cpus.empty() || analysis.cpus.back() < cpus) return "";
  return fmt::format("--cpu {}: the trace has CPUs 0-{}", analysis.cpus.back(), cpus - 1);
}

absl::Status AnalyzeWithProgress(const std::string& path, AnalysisOptions analysis, bool quiet,
                                 Report* report) {
  ProgressBar bar("napiscope: reading " + path, !quiet && isatty(STDERR_FILENO));
  analysis.load.progress = [&bar](double fraction) { bar.Update(fraction); };
  return AnalyzeTrace(path, analysis, report);
}

absl::Status LoadHtmlWithProgress(const std::string& path, AnalysisOptions analysis, bool quiet,
                                  HtmlTrace* trace) {
  ProgressBar bar("napiscope: reading " + path, !quiet && isatty(STDERR_FILENO));
  analysis.load.progress = [&bar](double fraction) { bar.Update(fraction); };
  return LoadHtmlTrace(path, analysis, trace);
}

absl::Status WithProgressBar(const std::string& label, bool show, LoadOptions* load,
                             const std::function<absl::Status()>& work) {
  ProgressBar bar(label, show);
  load->progress = [&bar](double fraction) { bar.Update(fraction); };
  absl::Status status = work();
  load->progress = nullptr;
  return status;
}

bool WriteOutput(const std::string& path, const std::string& content, std::string* error) {
  if (path.empty() || path == "-") {
    std::cout << content << std::flush;
    return true;
  }
  std::ofstream file(path, std::ios::binary);
  if (file) file << content;
  if (file.flush()) return true;
  *error = fmt::format("{}: cannot write: {}", path, std::strerror(errno));
  return false;
}

int Fail(std::string_view command, std::string_view message) {
  std::cerr << "napiscope" << (command.empty() ? "" : " ") << command << ": " << message << "\n";
  return kExitError;
}

}  // namespace napiscope::cli
