// Recording a trace.dat with libtracefs alone: an instance of our own, raw per-CPU pages.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "napiscope/event.h"

namespace napiscope {

/// The events of a comma-separated list of presets ("napiscope", "minimal"; see
/// docs/record.md) and "system:event" entries ("system:*" enables the whole system), each once;
/// as trace-cmd's -e, an entry without a colon is a system or an event of any system, which
/// the recorder finds in tracefs.
absl::StatusOr<std::vector<std::string>> ResolveEventPreset(const std::string& preset_or_list);

/// Names of the presets ResolveEventPreset knows.
std::vector<std::string> EventPresetNames();

/// Where the tracing happens: shared by `record` and `live`.
struct CaptureOptions {
  std::string instance_name = "napiscope";  ///< tracefs instances/NAME, created and removed
  std::vector<std::string> events;          ///< "system:event"; missing ones are skipped
  std::vector<int> cpus;                    ///< CPUs to trace; empty: all
  int64_t buffer_kb = 0;                    ///< per-CPU ring buffer; 0: the kernel's default
};

/// What and how long to record.
/// How far a recording is, for a running line.
struct RecordProgress {
  TimestampNs elapsed_ns = 0;  ///< since tracing started
  int64_t events = 0;          ///< events in the pages read so far
  int64_t lost_events = 0;     ///< events the ring buffers overwrote or dropped so far
  uint64_t bytes = 0;          ///< ring-buffer pages read so far, in bytes
};

struct RecordOptions {
  CaptureOptions capture;
  std::string output_path;      ///< the trace.dat to write (replaced whole when complete)
  /// Permissions the written file gets; 0: 0666 less the umask, as a new file's.
  unsigned output_mode = 0;
  TimestampNs duration_ns = 0;  ///< stop after this long; 0: only when `stop` is set
  const std::atomic<bool>* stop = nullptr;  ///< set (from a signal handler) to stop
  int poll_interval_ms = 20;                ///< how often the ring buffers are read
  /// Called once tracing runs, before the first read (e.g. to start the command to trace).
  std::function<void()> on_started;
  /// > 0: a flight recorder: only the pages whose last event lies within keep_ns of the
  /// newest event are kept, in memory, and written when the recording stops.
  TimestampNs keep_ns = 0;
  size_t keep_max_bytes = size_t{256} << 20;  ///< with keep_ns: memory for pages; oldest go
  /// Called about every progress_interval_ms while recording (events are counted only when
  /// set: each page read is scanned).
  std::function<void(const RecordProgress&)> on_progress;
  int progress_interval_ms = 500;  ///< how often on_progress is called
};

/// Per-CPU outcome of a recording.
struct RecordCpuStats {
  int cpu = 0;
  int64_t pages = 0;        ///< ring-buffer pages written
  int64_t lost_events = 0;  ///< events the ring buffer overwrote or dropped
};

/// Outcome of a recording.
struct RecordResult {
  std::vector<std::string> events_enabled;  ///< "system:event", sorted
  std::vector<std::string> events_missing;  ///< requested but not on this kernel
  std::vector<RecordCpuStats> cpus;
  uint64_t file_bytes = 0;
  TimestampNs elapsed_ns = 0;
  int64_t pages_not_kept = 0;  ///< captured pages a full disk left out of the file
  // With keep_ns (pages counts those kept):
  TimestampNs kept_first_ns = 0;         ///< first event kept (trace clock)
  TimestampNs kept_last_ns = 0;          ///< last event kept
  int64_t kept_events = 0;               ///< events in the kept pages
  int64_t pages_dropped_for_memory = 0;  ///< pages inside keep_ns dropped for keep_max_bytes
};

/// Records into options.output_path (trace.dat v6, uncompressed). The tracefs instance is
/// removed before returning, also on error. Errors are one line: not root, no tracefs,
/// instance exists, no event exists, disk full (naming the file). When the disk fills while
/// capturing, the pages on disk are kept in a file marked as cut short and the error says so.
absl::Status Record(const RecordOptions& options, RecordResult* result);

}  // namespace napiscope
