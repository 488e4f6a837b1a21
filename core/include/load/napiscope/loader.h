// Loading a trace file of any supported format into an EventSink.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/event_sink.h"

namespace napiscope {

/// Sees each CPU's records as they are decoded, before the merge orders them across CPUs, so
/// that work done per CPU (an export writing each CPU's events) runs on the decoding threads.
/// trace.dat only; the sink still receives every event.
class DecodedRecordsObserver {
 public:
  virtual ~DecodedRecordsObserver() = default;
  /// Called once on the loading thread, before any OnDecoded (for CPUs 0 .. cpus-1), when the
  /// load passes every record through OnDecoded (trace.dat); never called for other formats.
  virtual void OnDecodingStarts(int cpus) { (void)cpus; }
  /// The next records of `cpu` in file order, on the thread that decodes that CPU (always the
  /// same one for a CPU; other CPUs may be on other threads at the same time). String ids refer
  /// to `strings` (read it only during the call). A record with an unknown event id has kind
  /// EventKind::kCount; a kMissedEvents event comes before the first record after a loss. Times
  /// are as recorded (the merge gives a record earlier than the one before it that one's time).
  virtual void OnDecoded(uint16_t cpu, std::span<const Event> events,
                         const StringTable& strings) = 0;
};

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
  /// The trace.dat buffer instance to read (trace-cmd record -B NAME); "" reads the top buffer,
  /// or the only instance with events when the top buffer has none. trace-cmd report text of
  /// several buffers names them too (the "net:" prefix of each instance's lines).
  std::string buffer;
  /// With decoding threads: true, each merges the CPUs it decodes and the calling thread only
  /// their streams (best when the sink is the heavier side, as the analyses are); false, the
  /// calling thread merges every CPU (best when the sink is light, as counting, or when the
  /// decoding threads carry more work, as a DecodedRecordsObserver's). Same events either way.
  bool decoding_threads_merge = true;
  /// Read trace.dat records through libtracecmd's record API instead of napiscope's page
  /// reader (slower, single-threaded; the reference the page reader is tested against).
  bool libtracecmd_records = false;
  /// When set, sees every trace.dat record as it is decoded (see DecodedRecordsObserver).
  DecodedRecordsObserver* decoded_records = nullptr;
  /// How errors and TraceMeta::path name the trace; empty: its path (a copy of a stream is
  /// named as the stream: "stdin").
  std::string name;
};

/// The type URL of the payload under which a load error lists buffers to choose from.
inline constexpr char kBufferChoicesPayload[] = "napiscope/buffer-choices";

/// The buffer instances a load error offers to choose from (for LoadOptions::buffer): the
/// instances with events when the top buffer has none, or every instance when the one asked
/// for is not in the file. Empty for any other status.
std::vector<std::string> BufferChoices(const absl::Status& status);

/// Detects the format of `path` from its content (not its name).
absl::Status DetectTraceFormat(const std::string& path, TraceFormat* format);

/// How many first bytes of a file DetectTraceFormatOfStart reads (fewer when the file is
/// shorter).
size_t TraceStartBytes();

/// Detects the format from the first TraceStartBytes() bytes of a file, `head` (a stream is
/// judged before it is read whole); the error (without a path) says why it is no trace.
absl::Status DetectTraceFormatOfStart(std::string_view head, TraceFormat* format);

/// Loads `path` (trace.dat or ftrace text), fills `context` and streams events into `sink`.
/// Errors name the file and what is wrong; on error the sink may have seen some events.
absl::Status LoadTrace(const std::string& path, TraceContext& context, EventSink& sink,
                       const LoadOptions& options = {});

}  // namespace napiscope
