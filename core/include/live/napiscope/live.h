// Live analysis: events stream from a tracefs instance into the analyses while the load runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "napiscope/analysis_session.h"
#include "napiscope/record.h"
#include "napiscope/report.h"

namespace napiscope {

/// What to trace and how to analyse it.
struct LiveOptions {
  CaptureOptions capture;    ///< capture.instance_name defaults to "napiscope" too
  AnalysisOptions analysis;  ///< window and CPU filters apply as in `report`
  TimestampNs keep_ns = 0;   ///< keep the raw pages of this last span for SaveRecent; 0: none
  size_t keep_max_bytes = size_t{256} << 20;  ///< at most this many bytes of them
};

/// What SaveRecent wrote.
struct SavedTraceSpan {
  TimestampNs first_ns = 0;  ///< first event in the file (CLOCK_MONOTONIC, as traced)
  TimestampNs last_ns = 0;   ///< last event in the file
  int64_t events = 0;        ///< events in the file
  int64_t pages = 0;         ///< ring-buffer pages in the file
  uint64_t file_bytes = 0;   ///< size of the file
  int64_t pages_dropped_for_memory = 0;  ///< pages inside the span that keep_max_bytes dropped
};

/// NAPI polls of one CPU so far.
struct LiveNapiCounts {
  int64_t polls = 0;
  int64_t exhausted = 0;  ///< polls with work >= budget
};

/// A running capture: Poll() feeds the events the kernel has written so far into one
/// AnalysisSession; memory is bounded by CPUs, tasks and findings plus one poll's events (and
/// the pages LiveOptions::keep_ns keeps, at most keep_max_bytes).
class LiveCapture {
 public:
  /// Starts tracing (root needed; errors as for Record).
  static absl::StatusOr<std::unique_ptr<LiveCapture>> Start(const LiveOptions& options);
  ~LiveCapture();
  LiveCapture(const LiveCapture&) = delete;
  LiveCapture& operator=(const LiveCapture&) = delete;

  /// Reads the ring buffers (for at most about 50 ms) and feeds, in timestamp order, every
  /// event old enough that no CPU can still add an earlier one. True when every CPU was read to
  /// its last page; false when one still has pages (poll again without waiting).
  absl::StatusOr<bool> Poll();

  /// Stops tracing, feeds what is left and ends the stream; the tracefs instance is removed.
  absl::Status Stop();

  /// The report of what was fed so far (findings of intervals still open are not in it yet).
  Report Snapshot() const;

  /// Writes the kept pages (LiveOptions::keep_ns) as a trace.dat v6 that `napiscope report`
  /// and trace-cmd read; works before and after Stop. Errors name `path`.
  absl::Status SaveRecent(const std::string& path, SavedTraceSpan* span) const;

  /// Events fed to the analyses so far.
  int64_t events() const;

  /// NAPI polls per CPU (index = CPU).
  const std::vector<LiveNapiCounts>& napi_counts() const;

  /// "system:event" of the enabled events.
  const std::vector<std::string>& events_enabled() const;

  /// Requested events the running kernel does not have.
  const std::vector<std::string>& events_missing() const;

 private:
  struct State;
  LiveCapture();
  std::unique_ptr<State> state_;
};

}  // namespace napiscope
