// Loading a trace file of any supported format into an EventSink.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <absl/status/status.h>

#include "napiscope/event_sink.h"

namespace napiscope {

/// Optional knobs for a load.
struct LoadOptions {
  /// Called now and then with the fraction done (0..1); may be empty.
  std::function<void(double fraction)> progress;
  /// When set and true, the load stops and returns a kCancelled status.
  const std::atomic<bool>* cancel = nullptr;
  /// trace.dat threads in all: 0 one per core; 1 decodes on the calling thread; N decodes on
  /// N-1 threads while the calling thread merges and analyses. Files libtracecmd reads are
  /// always read on the calling thread. Events arrive in the same order either way.
  int threads = 0;
  /// Read trace.dat records through libtracecmd's record API instead of napiscope's page
  /// reader (slower, single-threaded; the reference the page reader is tested against).
  bool libtracecmd_records = false;
};

/// Detects the format of `path` from its content (not its name).
absl::Status DetectTraceFormat(const std::string& path, TraceFormat* format);

/// Loads `path` (trace.dat or ftrace text), fills `context` and streams events into `sink`.
/// Errors name the file and what is wrong; on error the sink may have seen some events.
absl::Status LoadTrace(const std::string& path, TraceContext& context, EventSink& sink,
                       const LoadOptions& options = {});

}  // namespace napiscope
