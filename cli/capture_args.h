// What `record` and `live` share: the capture options and the stop flag that
// SIGINT/SIGTERM (or the end of the traced command) set.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "napiscope/record.h"

namespace napiscope::cli {

/// The capture flags as typed.
struct CaptureArgs {
  std::vector<std::string> events = {"napiscope"};  ///< -e/--events, each a list
  std::string cpus;
  int64_t buffer_kb = 4096;
  std::string instance = "napiscope";
};

/// Adds -e/--events, --cpus, --buffer-kb and --instance to `command`.
void AddCaptureFlags(CLI::App* command, CaptureArgs* args, const std::string& default_instance);

/// The presets -e takes and their events, lines for a command's --help (an installed
/// napiscope has no docs/ beside it).
std::string PresetsHelp();

/// A second in nanoseconds.
inline constexpr int64_t kSecondNs = 1'000'000'000;

/// Adds option `name` (help `what`) taking a length of time: seconds as a number ("10", "0.5")
/// or a number with a unit ("500ms", "2s", "250us"), stored in nanoseconds in `*ns`. A value
/// that is not a time, or is outside [min_ns, max_ns], is one line naming the option.
CLI::Option* AddSecondsOption(CLI::App* command, const std::string& name, int64_t* ns,
                              const std::string& what, int64_t min_ns, int64_t max_ns);

/// Turns the flags into CaptureOptions; false (with `*error` set) when they are malformed.
bool ResolveCaptureArgs(const CaptureArgs& args, CaptureOptions* options, std::string* error);

/// Set by SIGINT, SIGTERM and every other TerminatingSignals() signal once InstallStopSignals
/// ran.
std::atomic<bool>& StopRequested();

/// Makes every TerminatingSignals() signal (SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGALRM, ...) set
/// StopRequested() instead of killing the process, so the tracefs instance is removed; an abort
/// or a crash removes the instance `instance_name` before the process dies.
void InstallStopSignals(const std::string& instance_name);

}  // namespace napiscope::cli
