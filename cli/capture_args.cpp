#include "capture_args.h"

#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.h"
#include "output_file.h"
#include "napiscope/format.h"
#include "napiscope/text_wrap.h"

namespace napiscope::cli {
namespace {

std::atomic<bool> stop_requested{false};

extern "C" void OnStopSignal(int) { stop_requested.store(true); }

// Where the instance would be (tracefs at either mount point), set before a crash can come,
// so the crash handler only calls async-signal-safe functions.
char crash_instance_paths[2][512];

// An abort or a crash: the capture cannot end normally, but the instance must not stay
// tracing. tracefs refuses to remove an instance whose files are open, so close every file
// first; then die of the same signal.
extern "C" void OnCrashSignal(int signal_number) {
  if (close_range(3, ~0U, 0) != 0) {
    for (int fd = 3; fd < (1 << 16); ++fd) close(fd);
  }
  for (const char* path : crash_instance_paths) {
    if (path[0] != '\0') rmdir(path);
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// A bound of AddSecondsOption as its messages say it: "3600 s", "100.00 ms".
std::string SecondsText(int64_t ns) {
  return ns % kSecondNs == 0 ? fmt::format("{} s", ns / kSecondNs) : FormatDuration(ns);
}

}  // namespace

CLI::Option* AddSecondsOption(CLI::App* command, const std::string& name, int64_t* ns,
                              const std::string& what, int64_t min_ns, int64_t max_ns) {
  auto parse = [name, ns, min_ns, max_ns](const std::string& text) {
    bool has_unit = !text.empty() && std::isalpha(static_cast<unsigned char>(text.back()));
    int64_t parsed = 0;
    if (!ParseDuration(has_unit ? text : text + "s", &parsed)) {
      throw CLI::ValidationError(
          name, fmt::format("wants seconds (10, 0.5) or a time with a unit (500ms, 2s), not '{}'",
                            OneLine(text)));
    }
    if (parsed < min_ns) {
      throw CLI::ValidationError(
          name, min_ns <= 1
                    ? fmt::format("wants a time longer than 0, not '{}'", text)
                    : fmt::format("wants at least {}, not '{}'", SecondsText(min_ns), text));
    }
    if (parsed > max_ns) {
      throw CLI::ValidationError(
          name, fmt::format("wants at most {}, not '{}'", SecondsText(max_ns), text));
    }
    *ns = parsed;
  };
  return command->add_option_function<std::string>(name, parse, what)->type_name("SECONDS");
}

std::string PresetsHelp() {
  std::string text = "Presets of -e and their events:\n";
  for (const std::string& name : EventPresetNames()) {
    absl::StatusOr<std::vector<std::string>> events = ResolveEventPreset(name);
    if (!events.ok()) continue;
    std::vector<std::string> listed = *events;  // commas kept where a line breaks
    for (size_t i = 0; i + 1 < listed.size(); ++i) listed[i] += ',';
    text += WrapPieces(listed, " ", 80, "  " + name + ": ", "    ");
  }
  return text + "Why each event matters: docs/record.md in napiscope's source";
}

void AddCaptureFlags(CLI::App* command, CaptureArgs* args, const std::string& default_instance) {
  // Named with the pid, so a later napiscope can tell an instance left by a dead one (killed,
  // aborted) and remove it.
  args->instance = default_instance + "-" + std::to_string(getpid());
  command
      ->add_option("-e,--events", args->events,
                   "presets (napiscope, minimal) and events (system:event, system, event), by "
                   "commas or repeated as trace-cmd's -e, e.g. -e napiscope -e sched_stat_runtime")
      ->allow_extra_args(false)  // each -e takes one value: a command after it is no event
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->capture_default_str();
  command->add_option("--cpus", args->cpus, "trace only these CPUs, e.g. 0,2-3 (default: all)");
  command->add_option("--buffer-kb", args->buffer_kb, "ring buffer per CPU in KiB")
      ->capture_default_str()
      ->check(WholeNumber(1, int64_t{1} << 24));
  command->add_option("--instance", args->instance, "name of the tracefs instance to create")
      ->capture_default_str();
}

bool ResolveCaptureArgs(const CaptureArgs& args, CaptureOptions* options, std::string* error) {
  auto events = ResolveEventPreset(fmt::format("{}", fmt::join(args.events, ",")));
  if (!events.ok()) {
    *error = std::string(events.status().message());
    return false;
  }
  options->events = *events;
  if (!args.cpus.empty() && !ParseCpuList(args.cpus, &options->cpus)) {
    *error = "--cpus wants a CPU list like 0,2-3, not '" + args.cpus + "'";
    return false;
  }
  if (args.instance.empty() || args.instance.find('/') != std::string::npos ||
      args.instance == "." || args.instance == "..") {
    *error = "--instance wants a plain name, not '" + args.instance + "'";
    return false;
  }
  options->buffer_kb = args.buffer_kb;
  options->instance_name = args.instance;
  return true;
}

std::atomic<bool>& StopRequested() { return stop_requested; }

void InstallStopSignals(const std::string& instance_name) {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  // Every way out ends the capture normally, so the tracefs instance is removed: Ctrl-C,
  // kill, a closed terminal, Ctrl-\, a closed pipe (`napiscope live | head -3`), and every
  // other signal that would end the process (SIGUSR1, SIGALRM, a real-time signal, ...).
  for (int signal_number : TerminatingSignals()) sigaction(signal_number, &action, nullptr);
  const char* roots[2] = {"/sys/kernel/tracing/instances/", "/sys/kernel/debug/tracing/instances/"};
  for (int i = 0; i < 2; ++i) {
    std::snprintf(crash_instance_paths[i], sizeof(crash_instance_paths[i]), "%s%s", roots[i],
                  instance_name.c_str());
  }
  struct sigaction crash {};
  crash.sa_handler = OnCrashSignal;
  sigemptyset(&crash.sa_mask);
  crash.sa_flags = SA_RESETHAND;
  for (int signal_number : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) {
    sigaction(signal_number, &crash, nullptr);
  }
}

}  // namespace napiscope::cli
