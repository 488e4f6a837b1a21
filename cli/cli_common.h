// Helpers the subcommands share: CPU lists and time windows, loading with a progress bar,
// writing outputs, and the one-line error convention.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "napiscope/report.h"
#include "napiscope/report_html.h"
#include "napiscope/thresholds.h"

namespace napiscope::cli {

/// A check that an integer option's value is a whole number from `min` to `max`, failing in
/// words ("wants a whole number from 0 to 256, not '999'"): CLI11's own checks print the range
/// of a double in full and let "1e3" through to a failed conversion. Give an `int` option's
/// `max` as INT_MAX at most.
CLI::Validator WholeNumber(int64_t min, int64_t max = std::numeric_limits<int64_t>::max());

/// A check that an option's value is one of `choices`, failing in words with the likely one
/// ("wants text, json or html, not 'jsn'; did you mean 'json'?"); the help lists them as
/// CLI::IsMember does ("{text,json,html}").
CLI::Validator OneOf(std::vector<std::string> choices);

/// The check of every --width: a number of columns, 0 or more, that an int holds.
CLI::Validator ColumnCount();

/// A check that a number option's value (a fraction allowed) is finite and at least `min`.
CLI::Validator NumberAtLeast(double min);

/// "0,2-3" -> {0, 2, 3}, as taskset and /proc/irq/N/smp_affinity_list write CPU lists.
bool ParseCpuList(std::string_view text, std::vector<int>* cpus);

/// --cpu, --from, --to, --threads and --buffer as given on the command line of report, check and
/// diff.
struct AnalysisFlags {
  std::string cpus;  ///< CPU list, "" for all
  std::string from;  ///< TimeBound text, "" for the start
  std::string to;    ///< TimeBound text, "" for the end
  int threads = 0;   ///< trace.dat decoding threads (LoadOptions::threads)
  std::string buffer;  ///< trace.dat buffer instance (LoadOptions::buffer), "" for the default

  /// Registers --cpu, --from, --to, --threads and --buffer on `command`.
  void AddTo(CLI::App* command);
  /// Fills the CPUs and load threads of `analysis` and checks the window's syntax; false with a
  /// message for people on bad input. Windows are resolved per trace by AnalyzeTraceWindowed.
  bool Apply(AnalysisOptions* analysis, std::string* error) const;
};

/// Registers --buffer (LoadOptions::buffer) on `command`, read into `buffer`.
void AddBufferOption(CLI::App* command, std::string* buffer);

/// Sets the window of `analysis` from `flags`: offsets (+100ms) count from the first event of
/// `path`. Syntax is checked earlier, by AnalysisFlags::Apply.
absl::Status ResolveWindow(const std::string& path, const AnalysisFlags& flags,
                           AnalysisOptions* analysis);

/// An error naming `trace`'s span when the window of `analysis` is empty or outside it, or its
/// CPUs when --cpu names one it lacks; OK otherwise.
absl::Status CheckWindowAndCpus(const std::string& path, const AnalysisOptions& analysis,
                                const TraceSummary& trace);

/// Analyses `path` with `analysis` and the window of `flags`: offsets (+100ms) are resolved
/// against the trace's first event, and a window that is empty or outside the trace, or a --cpu
/// the trace lacks, is an error naming the file and the trace's span or CPUs.
absl::Status AnalyzeTraceWindowed(const std::string& path, const AnalysisFlags& flags,
                                  AnalysisOptions analysis, bool quiet, Report* report);

/// As AnalyzeTraceWindowed, also building the timeline the HTML report draws from.
absl::Status LoadHtmlTraceWindowed(const std::string& path, const AnalysisFlags& flags,
                                   AnalysisOptions analysis, bool quiet, HtmlTrace* trace);

/// AnalyzeTrace with a progress bar on stderr when it is a terminal, `quiet` is false and the
/// load takes more than a second.
absl::Status AnalyzeWithProgress(const std::string& path, AnalysisOptions analysis, bool quiet,
                                 Report* report);

/// As AnalyzeWithProgress, also building the timeline the HTML report draws from.
absl::Status LoadHtmlWithProgress(const std::string& path, AnalysisOptions analysis, bool quiet,
                                  HtmlTrace* trace);

/// Columns to wrap text at: `requested` when >= 0, else the terminal's width when stdout is a
/// terminal, else the environment's COLUMNS when it is a positive number, else `fallback`.
size_t TextWidth(int requested, size_t fallback);

/// As TextWidth for text written to `output` ("" or "-": stdout): a file never takes the
/// terminal's width.
size_t TextWidthFor(const std::string& output, int requested, size_t fallback);

/// LoadTrace with the same progress bar as AnalyzeWithProgress.
absl::Status LoadWithProgress(const std::string& path, TraceContext& context, EventSink& sink,
                              LoadOptions load, bool quiet);

/// Runs `work` while `load->progress` draws a bar on stderr (when `show` and the work takes more
/// than a second), then clears the bar.
absl::Status WithProgressBar(const std::string& label, bool show, LoadOptions* load,
                             const std::function<absl::Status()>& work);

/// Writes `content` to `path` ("-" or "": stdout); false with a message naming the file.
bool WriteOutput(const std::string& path, const std::string& content, std::string* error);

/// Applies --threshold settings ("KEY=VALUE", as SetThreshold takes them) to `thresholds`;
/// the first bad one is the error.
absl::Status ApplyThresholdSettings(const std::vector<std::string>& settings,
                                    Thresholds* thresholds);

/// Whether `path` can be written (it is created and removed again when it does not exist yet;
/// "" and "-", devices and pipes are taken as they are); false with "PATH: reason" in
/// `*error`. Lets a command fail before it starts long work.
bool CheckWritable(const std::string& path, std::string* error);

/// False with "OUTPUT: ..." in `*error` when the regular file `output` is one of `inputs` (the
/// same file under any name or link): writing it would replace a trace the command reads.
/// Standard output ("" or "-") never is. Call before the command's long work.
bool CheckOutputIsNotAnInput(const std::string& output, const std::vector<std::string>& inputs,
                             std::string* error);

/// Both checks of an output a command writes after its analysis, in that order:
/// CheckOutputIsNotAnInput, then CheckWritable.
bool CheckOutput(const std::string& output, const std::vector<std::string>& inputs,
                 std::string* error);

/// Prints "napiscope COMMAND: MESSAGE" (or "napiscope: MESSAGE" when `command` is empty) on
/// stderr, one line (control characters escaped), and returns the error exit code.
int Fail(std::string_view command, std::string_view message);

}  // namespace napiscope::cli
