// The `napiscope` subcommands: each registers its options and runs, returning an exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace napiscope::cli {

/// Exit codes, rtla's convention: 0 clean, 2 findings at or above the threshold, 1 error.
enum ExitCode : int { kExitClean = 0, kExitError = 1, kExitFindings = 2 };

/// The exit codes for --help, worded as the man page's EXIT STATUS.
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 no finding at or above the threshold and no regression; 1 an error (one line "
    "on stderr naming the file and the problem); 2 a finding reached the threshold (report: "
    "warning; check and live: --fail-on) or a metric regressed beyond diff --fail-on-regression.";

/// Adds `napiscope info`; sets `*run` to the code that executes it once parsed.
void AddInfoCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope report`; sets `*run` to the code that executes it once parsed.
void AddReportCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope check`; sets `*run` to the code that executes it once parsed.
void AddCheckCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope diff`; sets `*run` to the code that executes it once parsed.
void AddDiffCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope record`; sets `*run` to the code that executes it once parsed.
void AddRecordCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope live`; sets `*run` to the code that executes it once parsed.
void AddLiveCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope export`; sets `*run` to the code that executes it once parsed.
void AddExportCommand(CLI::App& app, std::function<int()>* run);

/// Adds `napiscope fleet` (runs python3 -m napiscope.fleet); sets `*run` to run it.
void AddFleetCommand(CLI::App& app, std::function<int()>* run);

}  // namespace napiscope::cli
