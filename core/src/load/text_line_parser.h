// Splits one line of ftrace or trace-cmd report text into its columns, without allocating.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "load/text_flags.h"
#include "napiscope/event.h"

namespace napiscope::internal {

/// The columns every event line has; the views point into the line.
struct TextEventLine {
  std::string_view comm;  ///< as printed; "<idle>", "<...>" for unknown
  /// The buffer instance trace-cmd report names before the task ("net:   <idle>-0 ..."), empty
  /// for the top buffer's events.
  std::string_view buffer;
  int32_t pid = 0;
  int32_t tgid = -1;  ///< -1 when there is no tgid column or it shows "-------"
  int32_t cpu = 0;
  std::string_view flags;  ///< irq-info column ("d.h1."), empty when the line has none
  FlagsDialect flags_dialect = FlagsDialect::kKernel;
  bool comm_truncated = false;  ///< latency layouts cut comms to 8 characters: this one was
  bool latency_us = false;      ///< kernel latency-format: "123us+:" since the buffer's start
  TimestampNs ts_ns = 0;
  TimestampNs ts_resolution_ns = 1;  ///< what the last printed digit is worth (1000: "12.345678")
  /// perf script's layout: "comm pid [cpu] ts:" (no dash; "comm pid/tid" with -F pid,tid),
  /// or the event named with its system ("irq:softirq_raise").
  bool perf_layout = false;
  /// The timestamp is a bare integer: the count of a trace_clock that does not count time
  /// (x86-tsc, counter, uptime), which the kernel prints so; ts_ns then holds that count.
  bool ts_is_count = false;
  /// Event name ("sched_switch"); "function" for a function-tracer line ("f <-caller"),
  /// "<stack trace>" / "<user stack trace>" for the head of a kernel stack dump.
  std::string_view name;
  std::string_view fields;  ///< the rest, as the event's print format made it
};

/// perf script's record of lost events (--show-lost-events), in an event line's place:
/// "ping 15724 [001] 61549.050952: PERF_RECORD_LOST lost 224".
inline constexpr std::string_view kPerfLostRecord = "PERF_RECORD_LOST";

/// What a non-event line says about missed events ("CPU:1 [LOST 42 EVENTS]").
struct TextMissedLine {
  int32_t cpu = 0;
  int64_t count = -1;  ///< -1 when the line does not say
  /// The buffer instance trace-cmd report names before it ("net: CPU:1 [17 EVENTS DROPPED]"),
  /// empty for the top buffer's; points into the line.
  std::string_view buffer;
};

/// trace-cmd report names an instance before its lost-events line and not again before the
/// event printed right after it ("net: CPU:1 [17 EVENTS DROPPED]" then "  <idle>-0 [001] ..."):
/// that event is the instance's. Told of every line in order, it gives the event its buffer.
class BufferAfterMissedLine {
 public:
  /// After a lost-events line.
  void Missed(const TextMissedLine& missed) {
    buffer_.assign(missed.buffer);
    pending_ = true;
  }
  /// For an event line: one printed without a buffer right after an instance's lost-events
  /// line gets that instance (valid until the next Missed).
  void Event(TextEventLine* parsed) {
    if (pending_ && parsed->buffer.empty()) parsed->buffer = buffer_;
    pending_ = false;
  }
  /// After any other line.
  void Other() { pending_ = false; }

 private:
  std::string buffer_;
  bool pending_ = false;
};

/// Parses "SECONDS.FRACTION" (1 to 9 fraction digits) into nanoseconds; sets
/// `resolution_ns`, when given, to what the last digit is worth.
bool ParseTimestampNs(std::string_view text, TimestampNs* ts_ns,
                      TimestampNs* resolution_ns = nullptr);

/// Parses an event line of any supported layout; false when the line is not one.
bool ParseEventLine(std::string_view line, TextEventLine* out);

/// Parses trace-cmd's "CPU:N [N EVENTS DROPPED]" / "CPU:N [EVENTS DROPPED]" (after an
/// instance's "NAME: ") and the kernel's "CPU:N [LOST N EVENTS]" / "CPU:N [LOST EVENTS]".
bool ParseMissedLine(std::string_view line, TextMissedLine* out);

/// Why `line`, which is neither an event nor a header, does not read: the ftrace option that
/// printed it so where one did (raw, hex or bin output; context-info off), else "not an event
/// line".
std::string_view WhyNotAnEventLine(std::string_view line);

/// True for the frames of a stack dump after its head line (" => __irq_exit_rcu").
bool IsStackFrameLine(std::string_view line);

/// True when `name` (TextEventLine::name) heads a stack dump.
inline bool IsStackHead(std::string_view name) { return !name.empty() && name.front() == '<'; }

/// Strips spaces, tabs and a trailing carriage return from both ends.
std::string_view TrimSpaces(std::string_view text);

/// Parses a whole decimal integer (optionally negative); false on any other character.
bool ParseInt(std::string_view text, int64_t* value);

}  // namespace napiscope::internal
