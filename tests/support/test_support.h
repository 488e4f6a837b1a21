// Helpers shared by the tests: data paths, loading a trace in one call, running the CLI.
#pragma once

#include <functional>
#include <string>

#include <absl/status/status.h>

#include "napiscope/contexts.h"
#include "napiscope/event_sink.h"
#include "napiscope/report.h"
#include "napiscope/timeline.h"
#include "napiscope/trace_summary.h"

namespace napiscope::testing {

/// Path of a file under testdata/.
std::string TestData(const std::string& relative);

/// A test name for testdata file `relative`: "real/veth-threaded-napi.dat" ->
/// "veth_threaded_napi" (for INSTANTIATE_TEST_SUITE_P over testdata files).
std::string TestDataName(const std::string& relative);

/// A fresh, empty temporary directory for one test, removed when the test process exits.
std::string MakeTempDir();

/// Loads `path` into a summary; the status says why it failed.
absl::Status SummarizeTrace(const std::string& path, TraceSummary* summary);

/// A timeline built on its own (its own tracker, no analyses) from the events `play` sends the
/// sink it is given; `also`, when given, hears the tracker's intervals as well.
Timeline BuildStandaloneTimeline(const std::function<void(EventSink&)>& play,
                                 ContextListener* also = nullptr);

/// Loads `path` into a timeline built on its own (BuildStandaloneTimeline), as the GUI built it
/// before one pass fed both; the status says why it failed.
absl::Status LoadStandaloneTimeline(const std::string& path, Timeline* timeline);

/// Analyses `path` as if its events carried no common_flags (as `trace-cmd report` text
/// without latency columns): what such text must give. The status says why it failed.
absl::Status AnalyzeTraceWithoutFlags(const std::string& path, Report* report);

/// Result of running a command.
struct CommandResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `command` through /bin/sh, capturing stdout and stderr.
CommandResult RunCommand(const std::string& command);

/// Path of the napiscope CLI built with the tests.
std::string CliPath();

/// True when `program` is on PATH.
bool HaveProgram(const std::string& program);

/// Reads a whole file ("" when missing).
std::string ReadFile(const std::string& path);

/// Writes a whole file.
void WriteFile(const std::string& path, const std::string& content);

}  // namespace napiscope::testing
