// What a loader knows about the file itself, before and after the events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/event.h"

namespace napiscope {

/// The input formats napiscope reads.
enum class TraceFormat : uint8_t {
  kTraceDat,        ///< trace-cmd binary file
  kFtraceText,      ///< /sys/kernel/tracing/trace or trace_pipe text
  kTraceCmdText,    ///< `trace-cmd report` text
  kLiveTracefs,     ///< events read live from a tracefs instance (`napiscope live`)
  kPerfScriptText,  ///< `perf script` text of tracepoints
};

/// Name of a format for people ("trace.dat", "ftrace text", "trace-cmd report text", ...).
std::string_view TraceFormatName(TraceFormat format);

/// One stretch of events the ring buffer dropped on a CPU.
struct MissedEventsMark {
  uint16_t cpu = 0;
  TimestampNs ts_ns = 0;  ///< timestamp of the first event after the gap
  TimestampNs last_before_ns = -1;  ///< last event seen on that CPU before the gap (-1: none)
  int64_t count = -1;     ///< events lost, -1 when the file does not say
};

/// File-level facts, filled in by the loader.
struct TraceMeta {
  std::string path;
  TraceFormat format = TraceFormat::kTraceDat;
  int file_version = 0;            ///< trace.dat version (6, 7); 0 for text
  std::string compression;         ///< "none", "zstd 1.5.4", ...; text: "" or "gzip"/"zstd"/"xz"
  int cpus = 0;                    ///< CPUs the file has data slots for
  int long_size = 0;               ///< user-space long size of the traced machine
  bool big_endian = false;
  int page_size = 0;
  std::string uname;               ///< uname of the traced machine if the file has it
  std::string kernel_release;      ///< release part of uname ("6.18.0-rt5"), or ""
  std::string clock;               ///< trace clock of the top buffer if known
  std::string buffer;  ///< the buffer instance read (LoadOptions::buffer), "" for the top buffer
  std::vector<std::string> buffer_instances;  ///< other buffer instances in the file (not read)
  std::vector<std::string> event_formats;     ///< "system:event" formats the file carries
  /// "system:event" names enabled while recording, sorted, when the recorder says (napiscope
  /// record's files, live capture): one without events never happened. Empty: not known.
  std::vector<std::string> enabled_events;
  std::vector<std::string> warnings;          ///< things skipped or suspicious while loading
  int64_t time_resolution_ns = 1;  ///< step of the timestamps: 1, or the text's precision (1000)
  int64_t skipped_records = 0;     ///< records the loader could not decode
  int64_t skipped_lines = 0;       ///< text lines the loader could not parse
  int64_t stack_records = 0;       ///< stack-trace records kept out of the event stream
  bool comms_cut = false;          ///< text whose comm column is cut to 8 characters
};

}  // namespace napiscope
