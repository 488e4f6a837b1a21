#include "load/text_loader.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "load/buffer_choice.h"
#include "load/event_ingest.h"
#include "load/text_fields.h"
#include "load/text_input.h"
#include "load/text_line_parser.h"
#include "load/text_scan.h"
#include "napiscope/format.h"

namespace napiscope::internal {
namespace {

constexpr int64_t kProgressEveryEvents = 1 << 16;
constexpr size_t kSniffTextBytes = 64 * 1024;
constexpr size_t kSniffMaxLines = 400;
constexpr size_t kReportedSkippedLines = 5;
constexpr size_t kReportedCutNames = 5;
constexpr size_t kExcerptChars = 80;
// Buffer of each reader when several runs are merged (one reader per run).
constexpr size_t kRunReaderBytes = 64 * 1024;

// Name and kind of an event name, cached so each line costs one hash lookup.
struct NameInfo {
  StringId name = 0;
  EventKind kind = EventKind::kOther;
};

// A missed-events line waiting for its CPU's next event in the same run.
struct PendingGap {
  int32_t cpu = 0;
  int64_t count = -1;
};

// One run of lines in time order, read by its own reader; its head is the next event.
struct Run {
  TextLineReader reader;
  uint64_t end_offset = UINT64_MAX;
  int64_t line_number = 0;  // of the last line read
  std::vector<PendingGap> gaps;
  BufferAfterMissedLine buffer_after_missed;
  HtmlTraceData html{false, false};  // systrace HTML: the lines that are trace text
  Event head;
  StringId head_comm = 0;
  bool head_after_gap = false;
  int64_t head_gap_count = -1;
};

class TextTraceLoader {
 public:
  TextTraceLoader(TraceContext& context, EventSink& sink, const LoadOptions& options)
      : context_(context), options_(options), ingest_(context, sink, nullptr) {}

  absl::Status Load(const std::string& path) {
    absl::Status status = ScanText(path, options_, &scan_);
    if (!status.ok()) return status;
    if (status = ChooseTextBuffer(); !status.ok()) return status;
    context_.meta.file_version = 0;
    context_.meta.format = scan_.evidence.Decide();
    context_.meta.cpus = std::max(scan_.header_cpus, scan_.max_cpu + 1);
    const size_t count = scan_.runs.size();
    StreamTournament heads;
    for (size_t i = 0; i < count; ++i) {
      Run& run = *runs_.emplace_back(std::make_unique<Run>());
      status = run.reader.Open(path, count > 1 ? kRunReaderBytes : (1u << 20));
      if (status.ok()) status = run.reader.SkipTo(scan_.runs[i].offset);
      if (!status.ok()) return status;
      if (i + 1 < count) run.end_offset = scan_.runs[i + 1].offset;
      run.html = HtmlTraceData(scan_.html, scan_.runs[i].in_html_data);
      run.line_number = scan_.runs[i].first_line - 1;
      if (Advance(run)) heads.Push(run.head.ts_ns, static_cast<int>(i));
    }
    context_.meta.compression = std::string(CompressionName(runs_[0]->reader.compression()));
    heads.Build();
    int64_t taken = 0;
    while (!heads.empty()) {
      Run& run = *runs_[heads.top_stream()];
      Take(run);
      if (Advance(run)) {
        heads.ReplaceTop(run.head.ts_ns);
      } else {
        heads.PopTop();
      }
      if (++taken % kProgressEveryEvents == 0) {
        if (options_.cancel != nullptr && options_.cancel->load()) {
          return absl::CancelledError("load cancelled");
        }
        if (options_.progress) {
          options_.progress(0.5 + 0.5 * static_cast<double>(taken) /
                                      static_cast<double>(std::max<int64_t>(1, scan_.event_lines)));
        }
      }
    }
    return Finish();
  }

 private:
  // The buffer whose lines to read (LoadOptions::buffer, chosen as for a trace.dat).
  absl::Status ChooseTextBuffer() {
    std::vector<BufferHolding> holdings;
    for (const auto& [name, lines] : scan_.instance_lines) holdings.push_back({name, lines > 0});
    std::string warning;
    absl::Status status = ChooseBuffer(options_.buffer, scan_.top_buffer_lines > 0, holdings,
                                       &context_.meta.buffer, &warning);
    if (!status.ok()) return status;
    if (!warning.empty()) Warn(std::move(warning));
    for (const auto& [name, lines] : scan_.instance_lines) {
      if (name != context_.meta.buffer) context_.meta.buffer_instances.push_back(name);
    }
    return absl::OkStatus();
  }

  // Reads `run` up to its next event; false when the run has no more.
  bool Advance(Run& run) {
    std::string_view line;
    while (run.reader.offset() < run.end_offset && run.reader.NextLine(&line)) {
      ++run.line_number;
      if (run.html.Keep(line) && HandleLine(run, line)) return true;
    }
    for (const PendingGap& gap : run.gaps) {
      Warn(absl::StrCat("CPU ", gap.cpu, ": a lost-events line is followed by no event"));
    }
    run.gaps.clear();
    NoteReadingEnd(run);
    return false;
  }

  // True when the line is an event, now the head of `run`.
  bool HandleLine(Run& run, std::string_view line) {
    TextEventLine parsed;
    if (ParseEventLine(line, &parsed)) {
      run.buffer_after_missed.Event(&parsed);
      if (parsed.buffer != context_.meta.buffer) return false;  // another buffer's event
      if (IsStackHead(parsed.name)) {
        ++context_.meta.stack_records;
        return false;
      }
      if (parsed.name == kPerfLostRecord) {
        int64_t count = -1;
        if (!parsed.fields.starts_with("lost ") || !ParseInt(parsed.fields.substr(5), &count)) {
          count = -1;
        }
        AddGap(run, parsed.cpu, count);
        return false;
      }
      return ReadEvent(run, parsed, line);
    }
    TextMissedLine missed;
    if (ParseMissedLine(line, &missed)) {
      run.buffer_after_missed.Missed(missed);
      if (missed.buffer == context_.meta.buffer) AddGap(run, missed.cpu, missed.count);
      return false;
    }
    run.buffer_after_missed.Other();
    if (IsStackFrameLine(line)) return false;
    int cpus = 0;
    FormatEvidence evidence;
    if (IsHeaderLine(line, &cpus, &evidence)) return false;
    Skip(run.line_number, line, WhyNotAnEventLine(line));
    return false;
  }

  // A gap on `cpu` before its next event in `run`; `count` events lost, -1 when not said.
  static void AddGap(Run& run, int32_t cpu, int64_t count) {
    auto gap = std::find_if(run.gaps.begin(), run.gaps.end(),
                            [&](const PendingGap& g) { return g.cpu == cpu; });
    if (gap == run.gaps.end()) {
      run.gaps.push_back({cpu, count});
    } else if (gap->count >= 0 && count >= 0) {
      gap->count += count;  // two lines before one event: both gaps, one place
    } else {
      gap->count = -1;
    }
  }

  bool ReadEvent(Run& run, const TextEventLine& parsed, std::string_view line) {
    Event& event = run.head;
    event = Event();
    event.ts_ns = parsed.ts_ns;
    finest_resolution_ns_ = std::min(finest_resolution_ns_, parsed.ts_resolution_ns);
    event.cpu = static_cast<uint16_t>(parsed.cpu);
    event.pid = parsed.pid;
    const NameInfo& info = InfoOf(parsed.name);
    event.kind = info.kind;
    event.name = info.name;
    flags_printed_ = flags_printed_ || !parsed.flags.empty();
    vectors_traced_ = vectors_traced_ || event.kind == EventKind::kIrqVectorEntry;
    softirqs_entered_ = softirqs_entered_ || event.kind == EventKind::kSoftirqEntry;
    if (!parsed.flags.empty() &&
        !DecodeFlagsColumn(parsed.flags, parsed.flags_dialect, &event.flags)) {
      Skip(run.line_number, line, "unknown irq-info column");
      return false;
    }
    if (!ParseEventFields(parsed.fields, context_.strings, &event)) {
      Skip(run.line_number, line,
           absl::StrCat("fields do not read as ", std::string(parsed.name)));
      return false;
    }
    // "<idle>" and "<...>" are placeholders, and latency layouts cut comms: neither names the
    // task. A cut name is kept aside, for tasks nothing else names.
    run.head_comm = 0;
    if (!parsed.comm.empty() && parsed.comm.front() != '<') {
      if (parsed.comm_truncated) {
        context_.meta.comms_cut = true;
        if (cut_names_.size() < kMaxCutNames) {
          cut_names_.try_emplace(event.pid, context_.strings.Intern(parsed.comm));
        }
      } else {
        run.head_comm = context_.strings.Intern(parsed.comm);
      }
    }
    run.head_after_gap = false;
    auto gap = std::find_if(run.gaps.begin(), run.gaps.end(),
                            [&](const PendingGap& g) { return g.cpu == parsed.cpu; });
    if (gap != run.gaps.end()) {
      run.head_after_gap = true;
      run.head_gap_count = gap->count;
      run.gaps.erase(gap);
    }
    return true;
  }

  // Delivers the head of `run`, after the gap the text announced before it: on the same CPU,
  // at the time of the first event after the gap, as the trace.dat loader places it.
  void Take(Run& run) {
    if (!begun_) {
      ingest_.Begin();
      begun_ = true;
    }
    Event& event = run.head;
    if (static_cast<size_t>(event.cpu) >= cpu_last_ns_.size()) {
      cpu_last_ns_.resize(event.cpu + 1, -1);
    }
    TimestampNs& last_ns = cpu_last_ns_[event.cpu];  // as written: what the CPU reached
    if (run.head_after_gap) {
      Event gap;
      gap.ts_ns = event.ts_ns;
      gap.cpu = event.cpu;
      gap.kind = EventKind::kMissedEvents;
      gap.pid = -1;
      gap.missed = {run.head_gap_count};
      ingest_.DeliverMissed(gap, last_ns);
    }
    last_ns = std::max(last_ns, event.ts_ns);
    ++events_;
    ingest_.Deliver(event, run.head_comm);
  }

  void NoteReadingEnd(Run& run) {
    if (!run.reader.status().ok()) {
      Warn(absl::StrCat("reading stopped at line ", run.line_number, ": ",
                        run.reader.status().message()));
      if (reading_error_.ok()) reading_error_ = run.reader.status();
    }
    if (run.reader.truncated()) {
      Warn(absl::StrCat(std::string(CompressionName(run.reader.compression())),
                        " stream ends early (truncated file?); read ", run.line_number, " lines"));
    }
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

  // Runs are read in time order, not file order: the report names the lowest line numbers.
  void Skip(int64_t line_number, std::string_view line, std::string_view reason) {
    ++context_.meta.skipped_lines;
    auto at = std::lower_bound(skipped_examples_.begin(), skipped_examples_.end(), line_number);
    if (at - skipped_examples_.begin() < static_cast<ptrdiff_t>(kReportedSkippedLines)) {
      skipped_examples_.insert(at, line_number);
      if (skipped_examples_.size() > kReportedSkippedLines) skipped_examples_.pop_back();
    }
    if (first_skipped_.empty() || line_number < first_skipped_line_) {
      first_skipped_line_ = line_number;
      std::string_view excerpt = line.substr(0, kExcerptChars);
      first_skipped_ =
          absl::StrCat("line ", line_number, ": ", std::string(reason), ": '", std::string(excerpt),
                       line.size() > kExcerptChars ? "...'" : "'");
    }
  }

  void Warn(std::string message) { context_.meta.warnings.push_back(std::move(message)); }

  // A cut comm never names a task (a NAPI thread would read as "napi/vb-"): the report says
  // which tasks nothing else names.
  void NameCutTasks() {
    std::vector<std::pair<int32_t, StringId>> unresolved;
    for (const auto& [pid, cut] : cut_names_) {
      if (context_.tasks.CommOf(pid) == 0) unresolved.push_back({pid, cut});
    }
    std::sort(unresolved.begin(), unresolved.end());
    std::vector<std::string> examples;
    for (const std::pair<int32_t, StringId>& task : unresolved) {
      if (examples.size() < kReportedCutNames) {
        int32_t pid = task.first;
        examples.push_back(
            absl::StrCat(std::string(context_.strings.Get(task.second)), " (pid ", pid, ")"));
      }
    }
    std::string message =
        "the comm column is cut to 8 characters (latency format); tasks are named from their "
        "sched_switch and wakeup fields";
    if (!unresolved.empty()) {
      absl::StrAppend(&message, ", ", unresolved.size(),
                      unresolved.size() == 1 ? " task is" : " tasks are",
                      " named by nothing else and left unnamed (cut name: ", absl::StrJoin(examples, ", "),
                      unresolved.size() > examples.size() ? ", ..." : "", ")");
    }
    Warn(std::move(message));
  }

  absl::Status Finish() {
    if (events_ == 0) {
      if (!reading_error_.ok()) return reading_error_;
      if (scan_.html) {
        return absl::InvalidArgumentError(absl::StrCat(
            "an HTML page with ", scan_.html_blocks,
            " systrace trace-data blocks and no ftrace event in them (systrace's HTML keeps "
            "the trace in <script class=\"trace-data\"> blocks)"));
      }
      if (scan_.lines == 0) return absl::InvalidArgumentError("no text in the file");
      if (first_skipped_.empty()) {
        // e.g. trace-cmd report's "cpus=2" alone: a CPU or filter that selected nothing.
        return absl::InvalidArgumentError(
            absl::StrCat("no event line: the text has only headers, lost-events marks or blank "
                         "lines (",
                         scan_.lines, scan_.lines == 1 ? " line)" : " lines)"));
      }
      return absl::InvalidArgumentError(absl::StrCat("no event could be parsed from ", scan_.lines,
                                                     scan_.lines == 1 ? " line (" : " lines (",
                                                     first_skipped_, ")"));
    }
    int64_t skipped = context_.meta.skipped_lines;
    if (skipped > 0) {
      Warn(absl::StrCat(
          skipped, skipped == 1 ? " line was" : " lines were", " not understood and skipped (line",
          skipped_examples_.size() > 1 ? "s " : " ", absl::StrJoin(skipped_examples_, ", "),
          skipped > static_cast<int64_t>(skipped_examples_.size()) ? ", ..." : "",
          "; first: ", first_skipped_, ")"));
    }
    if (scan_.backwards_on_cpu > 0) {
      Warn(absl::StrCat(scan_.backwards_on_cpu,
                        " events have timestamps earlier than the previous event on their CPU; ",
                        scan_.too_many_runs ? "analysed at the time of the line before"
                                            : "analysed in time order"));
    } else if (ingest_.clamped() > 0) {
      Warn(absl::StrCat(ingest_.clamped(),
                        " events are earlier than the line before them (text not merged by time); "
                        "analysed at the time of the line before"));
    }
    bool perf = context_.meta.format == TraceFormat::kPerfScriptText;
    if (finest_resolution_ns_ > 1) {
      context_.meta.time_resolution_ns = finest_resolution_ns_;
      Warn(absl::StrCat("timestamps are printed to ", FormatDuration(finest_resolution_ns_),
                        ": every time and duration is exact only to that (",
                        perf ? "perf script --ns" : "trace-cmd report -t, or the trace.dat,",
                        " gives nanoseconds)"));
    }
    if (softirqs_entered_ && !flags_printed_ && !vectors_traced_) {
      Warn(absl::StrCat(
          "the text has no irq-info column", perf ? "" : " (trace-cmd report prints it with -l)",
          " and no irq_vectors events: an interrupt not traced as an event (x86's local timer, "
          "IPIs) cannot be seen, so a softirq run at its exit counts as run in task_bh_enable "
          "and its time as the task's (",
          perf ? "record irq_vectors:* too, or a trace.dat, which has the flags"
               : "the trace.dat, or trace-cmd report -l, has the flags",
          ")"));
    }
    if (context_.meta.comms_cut) NameCutTasks();
    if (options_.progress) options_.progress(1.0);
    if (begun_) ingest_.End();
    return absl::OkStatus();
  }

  static constexpr size_t kMaxCutNames = 1 << 16;

  TraceContext& context_;
  const LoadOptions& options_;
  EventIngest ingest_;
  TextScan scan_;
  std::vector<std::unique_ptr<Run>> runs_;
  absl::flat_hash_map<std::string_view, NameInfo> names_;
  absl::flat_hash_map<int32_t, StringId> cut_names_;  // pid -> comm as the cut column shows it
  std::vector<TimestampNs> cpu_last_ns_;
  bool flags_printed_ = false;     // some line had an irq-info column
  bool vectors_traced_ = false;    // some line was an x86 vector's entry (irq_vectors:*)
  bool softirqs_entered_ = false;  // some line was a softirq_entry
  bool begun_ = false;
  int64_t events_ = 0;
  TimestampNs finest_resolution_ns_ = INT64_MAX;  // of every event line's timestamp
  absl::Status reading_error_;
  std::vector<int64_t> skipped_examples_;  // the lowest skipped line numbers, ascending
  int64_t first_skipped_line_ = 0;
  std::string first_skipped_;
};

}  // namespace

bool LooksLikeTraceText(std::string_view head, TraceFormat* format) {
  std::string text = DecompressPrefix(head, kSniffTextBytes);
  if (text.empty()) return false;
  // Systrace's HTML page: its trace text comes after megabytes of viewer code.
  if (LooksLikeHtml(text)) {
    *format = TraceFormat::kFtraceText;
    return true;
  }
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
      evidence.NoteEvent(parsed);
      ++events;
    } else if (ParseMissedLine(line, &missed)) {
      evidence.NoteMissed(line);
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
