#include "load/text_scan.h"

#include <algorithm>
#include <cctype>

#include "load/text_fields.h"
#include "load/text_input.h"

namespace napiscope::internal {
namespace {

constexpr int64_t kProgressEveryLines = 1 << 16;

// The kernel prints the time of a trace_clock that counts cycles or events as a bare integer;
// read as nanoseconds, every duration would be wrong by the clock's rate.
absl::Status ClockCountError(int64_t line_number, TimestampNs count) {
  return absl::InvalidArgumentError(absl::StrCat(
      "line ", line_number, ": timestamp ", count,
      " has no decimal point: the trace_clock counted cycles or events (x86-tsc, counter, "
      "uptime), not time; napiscope needs nanoseconds: record with trace_clock local, global "
      "or mono"));
}

}  // namespace

TraceFormat FormatEvidence::Decide() const {
  if (perf_lines) return TraceFormat::kPerfScriptText;
  if (trace_cmd_header) return TraceFormat::kTraceCmdText;
  if (ftrace_header) return TraceFormat::kFtraceText;
  if (latency_times) return TraceFormat::kFtraceText;
  if (glued_columns) return TraceFormat::kTraceCmdText;
  if (kernel_columns) return TraceFormat::kFtraceText;
  if (dropped_marks) return TraceFormat::kTraceCmdText;
  if (lost_marks) return TraceFormat::kFtraceText;
  // trace-cmd report prints no flags column unless -l; the kernel prints one by default.
  return bare_lines ? TraceFormat::kTraceCmdText : TraceFormat::kFtraceText;
}

void FormatEvidence::NoteEvent(const TextEventLine& line) {
  perf_lines = perf_lines || line.perf_layout;
  if (line.latency_us) {
    latency_times = true;
  } else if (line.flags.empty()) {
    bare_lines = true;
  } else if (line.flags_dialect == FlagsDialect::kTraceCmd) {
    glued_columns = true;
  } else {
    kernel_columns = true;
  }
}

void FormatEvidence::NoteMissed(std::string_view line) {
  if (line.find("DROPPED") != std::string_view::npos) {
    dropped_marks = true;
  } else {
    lost_marks = true;
  }
}

bool IsHeaderLine(std::string_view line, int* cpus, FormatEvidence* evidence) {
  std::string_view trimmed = TrimSpaces(line);
  if (trimmed.empty()) return true;
  int64_t value = 0;
  if (trimmed.front() == '#') {
    if (trimmed.starts_with("# tracer:")) evidence->ftrace_header = true;
    size_t p = trimmed.find("#P:");
    if (p != std::string_view::npos) {
      std::string_view digits = trimmed.substr(p + 3);
      digits = digits.substr(0, digits.find_first_not_of("0123456789"));
      if (ParseInt(digits, &value) && value > 0 && value <= 0xffff) {
        *cpus = static_cast<int>(value);
        evidence->ftrace_header = true;
      }
    }
    return true;
  }
  if (trimmed.starts_with("cpus=")) {
    if (!ParseInt(trimmed.substr(5), &value) || value <= 0 || value > 0xffff) return false;
    *cpus = static_cast<int>(value);
    evidence->trace_cmd_header = true;
    return true;
  }
  if (trimmed.starts_with("version = ")) {
    evidence->trace_cmd_header = true;
    return ParseInt(trimmed.substr(10), &value);
  }
  // trace-cmd report -w's summary: "Average wakeup latency: 49.612 usecs", "Maximum Latency:
  // 2579.510 usecs at timestamp: 60982.491244", "Minimum Latency: ...", "RT task timings:".
  if (trimmed.starts_with("Average wakeup latency: ") || trimmed.starts_with("Maximum Latency: ") ||
      trimmed.starts_with("Minimum Latency: ") || trimmed == "RT task timings:") {
    return true;
  }
  // Older trace-cmd: "CPU 3 is empty".
  return trimmed.starts_with("CPU ") && trimmed.ends_with(" is empty");
}

bool LooksLikeHtml(std::string_view head) {
  head = TrimSpaces(head.substr(0, 64));
  auto starts_with_nocase = [&](std::string_view prefix) {
    if (head.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(head[i])) != prefix[i]) return false;
    }
    return true;
  };
  return starts_with_nocase("<!doctype html") || starts_with_nocase("<html");
}

bool HtmlTraceData::Keep(std::string_view line) {
  if (!html_) return true;
  if (!inside_) {
    if (line.find("<script class=\"trace-data\"") == std::string_view::npos) return false;
    inside_ = first_line_ = true;
    other_block_ = false;
    ++blocks_;
    return false;
  }
  if (line.find("</script>") != std::string_view::npos) {
    inside_ = false;
    return false;
  }
  if (first_line_) {
    std::string_view trimmed = TrimSpaces(line);
    if (!trimmed.empty()) {
      first_line_ = false;
      other_block_ = trimmed.front() == '{' || trimmed.front() == '[';
    }
  }
  return !other_block_;
}

namespace {

// Counts an event line of `buffer` ("" for the top buffer).
void CountBufferLine(std::string_view buffer, TextScan* scan) {
  if (buffer.empty()) {
    ++scan->top_buffer_lines;
    return;
  }
  for (auto& [name, lines] : scan->instance_lines) {
    if (name == buffer) {
      ++lines;
      return;
    }
  }
  if (scan->instance_lines.size() < kMaxTextBuffers) {
    scan->instance_lines.emplace_back(std::string(buffer), 1);
  }
}

}  // namespace

absl::Status ScanText(const std::string& path, const LoadOptions& options, TextScan* scan) {
  TextLineReader reader;
  absl::Status status = reader.Open(path);
  if (!status.ok()) return status;
  *scan = TextScan();
  scan->runs.push_back({0, 1, false});
  const size_t max_runs =
      reader.compression() == TextCompression::kNone ? kMaxTextRuns : kMaxCompressedTextRuns;
  HtmlTraceData html(false, false);
  StringTable scratch_strings;  // fields checked here are not the trace's strings
  std::vector<TimestampNs> cpu_last_ns;
  TimestampNs last_ns = INT64_MIN;
  uint64_t after_last_event = 0;  // a new run takes the non-event lines before its first event
  int64_t line_after_last_event = 1;
  std::string_view line;
  TextEventLine parsed;
  TextMissedLine missed;
  BufferAfterMissedLine buffer_after_missed;
  while (reader.NextLine(&line)) {
    ++scan->lines;
    if (scan->lines == 1 && LooksLikeHtml(line)) {
      scan->html = true;
      html = HtmlTraceData(true, false);
    }
    if (!html.Keep(line)) continue;
    if (ParseEventLine(line, &parsed)) {
      if (parsed.ts_is_count) return ClockCountError(scan->lines, parsed.ts_ns);
      scan->evidence.NoteEvent(parsed);
      ++scan->event_lines;
      buffer_after_missed.Event(&parsed);
      CountBufferLine(parsed.buffer, scan);
      if (parsed.ts_ns < last_ns && !scan->too_many_runs) {
        if (scan->runs.size() == max_runs) {
          scan->too_many_runs = true;
          scan->runs.resize(1);
        } else {
          scan->runs.push_back({after_last_event, line_after_last_event, scan->html});
        }
      }
      last_ns = parsed.ts_ns;
      if (static_cast<size_t>(parsed.cpu) >= cpu_last_ns.size()) {
        cpu_last_ns.resize(parsed.cpu + 1, INT64_MIN);
      }
      // A line whose fields do not read is skipped later: it cannot take a CPU's time back.
      Event event;
      event.kind = EventKindFromName(parsed.name);
      if (parsed.ts_ns < cpu_last_ns[parsed.cpu] &&
          ParseEventFields(parsed.fields, scratch_strings, &event)) {
        ++scan->backwards_on_cpu;
      }
      cpu_last_ns[parsed.cpu] = std::max(cpu_last_ns[parsed.cpu], parsed.ts_ns);
      scan->max_cpu = std::max(scan->max_cpu, parsed.cpu);
      after_last_event = reader.offset();
      line_after_last_event = scan->lines + 1;
    } else if (ParseMissedLine(line, &missed)) {
      scan->evidence.NoteMissed(line);
      buffer_after_missed.Missed(missed);
    } else {
      buffer_after_missed.Other();
      IsHeaderLine(line, &scan->header_cpus, &scan->evidence);
    }
    if (scan->lines % kProgressEveryLines == 0) {
      if (options.cancel != nullptr && options.cancel->load()) {
        return absl::CancelledError("load cancelled");
      }
      if (options.progress) options.progress(reader.FractionRead() / 2);
    }
  }
  scan->html_blocks = html.blocks();
  // Reading errors are reported by the second reading, with what it could load.
  return absl::OkStatus();
}

}  // namespace napiscope::internal
