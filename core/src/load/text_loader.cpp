#include "load/text_loader.h"

#include <algorithm>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "load/text_fields.h"
#include "load/text_input.h"
#include "load/text_line_parser.h"

namespace napiscope::internal {
namespace {

constexpr int64_t kProgressEveryLines = 1 << 16;
constexpr size_t kSniffTextBytes = 64 * 1024;
constexpr size_t kSniffMaxLines = 400;
constexpr size_t kReportedSkippedLines = 5;
constexpr size_t kExcerptChars = 80;

// What the lines seen so far say about who wrote the text.
struct FormatEvidence {
  bool trace_cmd_header = false;  // "cpus=N", "version = 6"
  bool ftrace_header = false;     // "# tracer: nop", "#P:2"
  bool glued_columns = false;     // "1d.h1.": CPU and flags glued, only trace-cmd -l
  bool kernel_columns = false;    // "[001] d.h1.": only the kernel
  bool dropped_marks = false;     // "CPU:N [EVENTS DROPPED]" (trace-cmd)
  bool lost_marks = false;        // "CPU:N [LOST N EVENTS]" (kernel)
  bool bare_lines = false;        // "[001]" without a flags column

  TraceFormat Decide() const {
    if (trace_cmd_header) return TraceFormat::kTraceCmdText;
    if (ftrace_header) return TraceFormat::kFtraceText;
    if (glued_columns) return TraceFormat::kTraceCmdText;
    if (kernel_columns) return TraceFormat::kFtraceText;
    if (dropped_marks) return TraceFormat::kTraceCmdText;
    if (lost_marks) return TraceFormat::kFtraceText;
    // trace-cmd report prints no flags column unless -l; the kernel prints one by default.
    return bare_lines ? TraceFormat::kTraceCmdText : TraceFormat::kFtraceText;
  }
};

// Header and marker lines that are not events; updates `cpus` and `evidence`.
bool IsHeaderLine(std::string_view line, int* cpus, FormatEvidence* evidence) {
  std::string_view trimmed = TrimSpaces(line);
  if (trimmed.empty()) return true;
  int64_t value = 0;
  if (trimmed.front() == '#') {
    if (trimmed.starts_with("# tracer:")) evidence->ftrace_header = true;
    size_t p = trimmed.find("#P:");
    if (p != std::string_view::npos && ParseInt(trimmed.substr(p + 3), &value) && value > 0 &&
        value <= 0xffff) {
      *cpus = static_cast<int>(value);
      evidence->ftrace_header = true;
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
  // Older trace-cmd: "CPU 3 is empty".
  return trimmed.starts_with("CPU ") && trimmed.ends_with(" is empty");
}

void NoteLineEvidence(const TextEventLine& line, FormatEvidence* evidence) {
  if (line.flags.empty()) {
    evidence->bare_lines = true;
  } else if (line.flags_dialect == FlagsDialect::kTraceCmd) {
    evidence->glued_columns = true;
  } else {
    evidence->kernel_columns = true;
  }
}

void NoteMissedEvidence(std::string_view line, FormatEvidence* evidence) {
  if (line.find("DROPPED") != std::string_view::npos) {
    evidence->dropped_marks = true;
  } else {
    evidence->lost_marks = true;
  }
}

// Name and kind of an event name, cached so each line costs one hash lookup.
struct NameInfo {
  StringId name = 0;
  EventKind kind = EventKind::kOther;
};

// Per-CPU state: what is needed to place missed-event marks and spot time going backwards.
struct CpuState {
  TimestampNs last_ts_ns = -1;
  bool missed_pending = false;
  int64_t missed_count = -1;
};

class TextTraceLoader {
 public:
  TextTraceLoader(TraceContext& context, EventSink& sink, const LoadOptions& options)
      : context_(context), sink_(sink), options_(options) {}

  absl::Status Load(const std::string& path) {
    TextLineReader reader;
    absl::Status status = reader.Open(path);
    if (!status.ok()) return status;
    context_.meta.file_version = 0;
    context_.meta.compression = std::string(CompressionName(reader.compression()));
    std::string_view line;
    int64_t line_number = 0;
    while (reader.NextLine(&line)) {
      ++line_number;
      HandleLine(line, line_number);
      if (line_number % kProgressEveryLines == 0) {
        if (options_.cancel != nullptr && options_.cancel->load()) {
          return absl::CancelledError("load cancelled");
        }
        if (options_.progress) options_.progress(reader.FractionRead());
      }
    }
    if (!reader.status().ok()) {
      if (events_ == 0) return reader.status();
      Warn(absl::StrCat("reading stopped at line ", line_number, ": ", reader.status().message()));
    }
    if (reader.truncated()) {
      Warn(absl::StrCat(std::string(CompressionName(reader.compression())),
                        " stream ends early (truncated file?); read ", line_number, " lines"));
    }
    return Finish(line_number);
  }

 private:
  void HandleLine(std::string_view line, int64_t line_number) {
    TextEventLine parsed;
    if (ParseEventLine(line, &parsed)) {
      HandleEvent(parsed, line, line_number);
      return;
    }
    TextMissedLine missed;
    if (ParseMissedLine(line, &missed)) {
      NoteMissedEvidence(line, &evidence_);
      CpuState& cpu = Cpu(missed.cpu);
      cpu.missed_pending = true;
      cpu.missed_count = missed.count;
      return;
    }
    if (IsHeaderLine(line, &header_cpus_, &evidence_)) return;
    Skip(line_number, line, "not an event line");
  }

  void HandleEvent(const TextEventLine& parsed, std::string_view line, int64_t line_number) {
    Event event;
    event.ts_ns = parsed.ts_ns;
    event.cpu = static_cast<uint16_t>(parsed.cpu);
    event.pid = parsed.pid;
    const NameInfo& info = InfoOf(parsed.name);
    event.kind = info.kind;
    event.name = info.name;
    if (!parsed.flags.empty() &&
        !DecodeFlagsColumn(parsed.flags, parsed.flags_dialect, &event.flags)) {
      Skip(line_number, line, "unknown irq-info column");
      return;
    }
    if (!ParseEventFields(parsed.fields, context_.strings, &event)) {
      Skip(line_number, line, absl::StrCat("fields do not read as ", std::string(parsed.name)));
      return;
    }
    NoteLineEvidence(parsed, &evidence_);
    if (events_ == 0) {
      context_.meta.format = evidence_.Decide();
      context_.meta.cpus = header_cpus_;
      sink_.OnBegin(context_);
    }
    CpuState& cpu = Cpu(parsed.cpu);
    max_cpu_ = std::max(max_cpu_, parsed.cpu);
    if (event.ts_ns < cpu.last_ts_ns) ++backwards_on_cpu_;
    if (event.ts_ns < last_ts_ns_) ++backwards_overall_;
    const TimestampNs written_ns = event.ts_ns;
    event.ts_ns = std::max(event.ts_ns, last_ts_ns_);  // analyses see time in order
    if (cpu.missed_pending) EmitMissed(event, cpu);
    cpu.last_ts_ns = std::max(cpu.last_ts_ns, written_ns);  // as written: tells the two cases
    last_ts_ns_ = event.ts_ns;

    // "<idle>" and "<...>" are placeholders, and -l cuts comms: neither names the task.
    if (!parsed.comm.empty() && parsed.comm.front() != '<' && !parsed.comm_truncated) {
      context_.tasks.ObserveComm(event.pid, context_.strings.Intern(parsed.comm), event.ts_ns);
    }
    context_.tasks.ObserveEvent(event);
    ++events_;
    sink_.OnEvent(event);
  }

  // Emits the marker for a gap the text announced before this CPU's next event, the way the
  // trace.dat loader places it: same CPU, the timestamp of the first event after the gap.
  void EmitMissed(const Event& next, CpuState& cpu) {
    MissedEventsMark mark{next.cpu, next.ts_ns, cpu.last_ts_ns, cpu.missed_count};
    context_.missed.push_back(mark);
    Event missed;
    missed.ts_ns = next.ts_ns;
    missed.cpu = next.cpu;
    missed.kind = EventKind::kMissedEvents;
    missed.pid = -1;
    missed.missed = {mark.count};
    sink_.OnEvent(missed);
    cpu.missed_pending = false;
    cpu.missed_count = -1;
  }

  const NameInfo& InfoOf(std::string_view name) {
    auto it = names_.find(name);
    if (it != names_.end()) return it->second;
    NameInfo info;
    info.name = context_.strings.Intern(name);
    info.kind = EventKindFromName(name);
    // The key must outlive the line buffer: use the interned copy.
    return names_.emplace(context_.strings.Get(info.name), info).first->second;
  }

  CpuState& Cpu(int32_t cpu) {
    if (static_cast<size_t>(cpu) >= cpus_.size()) cpus_.resize(cpu + 1);
    return cpus_[cpu];
  }

  void Skip(int64_t line_number, std::string_view line, std::string_view reason) {
    ++context_.meta.skipped_lines;
    if (skipped_examples_.size() < kReportedSkippedLines) {
      skipped_examples_.push_back(absl::StrCat(line_number));
    }
    if (first_skipped_.empty()) {
      std::string_view excerpt = line.substr(0, kExcerptChars);
      first_skipped_ =
          absl::StrCat("line ", line_number, ": ", std::string(reason), ": '", std::string(excerpt),
                       line.size() > kExcerptChars ? "...'" : "'");
    }
  }

  void Warn(std::string message) { context_.meta.warnings.push_back(std::move(message)); }

  absl::Status Finish(int64_t lines) {
    if (events_ == 0) {
      if (lines == 0) return absl::InvalidArgumentError("no text in the file");
      return absl::InvalidArgumentError(
          absl::StrCat("no event could be parsed from ", lines, " lines",
                       first_skipped_.empty() ? "" : absl::StrCat(" (", first_skipped_, ")")));
    }
    context_.meta.cpus = std::max(header_cpus_, max_cpu_ + 1);
    context_.meta.format = evidence_.Decide();
    int64_t skipped = context_.meta.skipped_lines;
    if (skipped > 0) {
      Warn(absl::StrCat(
          skipped, skipped == 1 ? " line was" : " lines were", " not understood and skipped (line",
          skipped_examples_.size() > 1 ? "s " : " ", absl::StrJoin(skipped_examples_, ", "),
          skipped > static_cast<int64_t>(skipped_examples_.size()) ? ", ..." : "",
          "; first: ", first_skipped_, ")"));
    }
    for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
      if (cpus_[cpu].missed_pending) {
        Warn(absl::StrCat("CPU ", cpu, ": a lost-events line is followed by no event"));
      }
    }
    if (backwards_on_cpu_ > 0) {
      Warn(absl::StrCat(backwards_on_cpu_,
                        " events have timestamps earlier than the previous event on their CPU; "
                        "analysed at the time of the line before"));
    } else if (backwards_overall_ > 0) {
      Warn(absl::StrCat(backwards_overall_,
                        " events are earlier than the line before them (text not merged by time); "
                        "analysed at the time of the line before"));
    }
    if (options_.progress) options_.progress(1.0);
    sink_.OnEnd();
    return absl::OkStatus();
  }

  TraceContext& context_;
  EventSink& sink_;
  const LoadOptions& options_;
  absl::flat_hash_map<std::string_view, NameInfo> names_;
  std::vector<CpuState> cpus_;
  FormatEvidence evidence_;
  int header_cpus_ = 0;
  int32_t max_cpu_ = -1;
  int64_t events_ = 0;
  TimestampNs last_ts_ns_ = INT64_MIN;
  int64_t backwards_on_cpu_ = 0;
  int64_t backwards_overall_ = 0;
  std::vector<std::string> skipped_examples_;
  std::string first_skipped_;
};

}  // namespace

bool LooksLikeTraceText(std::string_view head, TraceFormat* format) {
  std::string text = DecompressPrefix(head, kSniffTextBytes);
  if (text.empty()) return false;
  FormatEvidence evidence;
  int cpus = 0;
  size_t events = 0;
  size_t begin = 0;
  for (size_t lines = 0; lines < kSniffMaxLines && begin < text.size(); ++lines) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    TextEventLine parsed;
    TextMissedLine missed;
    if (ParseEventLine(line, &parsed)) {
      NoteLineEvidence(parsed, &evidence);
      ++events;
    } else if (ParseMissedLine(line, &missed)) {
      NoteMissedEvidence(line, &evidence);
    } else {
      IsHeaderLine(line, &cpus, &evidence);
    }
  }
  // A header alone is enough: an empty ftrace buffer still is an ftrace trace (with no events).
  if (events == 0 && !evidence.ftrace_header && !evidence.trace_cmd_header) return false;
  *format = evidence.Decide();
  return true;
}

absl::Status LoadTraceText(const std::string& path, TraceContext& context, EventSink& sink,
                           const LoadOptions& options) {
  TextTraceLoader loader(context, sink, options);
  return loader.Load(path);
}

}  // namespace napiscope::internal
