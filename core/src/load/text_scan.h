// The first reading of a text trace: who wrote it, its CPUs, and where its lines stop being in
// time order (per-CPU files concatenated, blocks pasted per CPU), so the second reading can
// merge those runs by time with one small reader each.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/status/status.h>

#include "load/text_line_parser.h"
#include "napiscope/loader.h"

namespace napiscope::internal {

/// What the lines seen so far say about who wrote the text.
struct FormatEvidence {
  bool trace_cmd_header = false;  ///< "cpus=N", "version = 6"
  bool ftrace_header = false;     ///< "# tracer: nop", "#P:2"
  bool glued_columns = false;     ///< "1d.h1.": CPU and flags glued, trace-cmd -l
  bool kernel_columns = false;    ///< "[001] d.h1.": only the kernel
  bool latency_times = false;     ///< "123us+:": the kernel's latency-format
  bool dropped_marks = false;     ///< "CPU:N [EVENTS DROPPED]" (trace-cmd)
  bool lost_marks = false;        ///< "CPU:N [LOST N EVENTS]" (kernel)
  bool bare_lines = false;        ///< "[001]" without a flags column
  bool perf_lines = false;        ///< "comm pid [001]" or "irq:softirq_raise:": perf script

  /// The producer the evidence points to.
  TraceFormat Decide() const;
  /// Notes what an event line shows.
  void NoteEvent(const TextEventLine& line);
  /// Notes a missed-events line.
  void NoteMissed(std::string_view line);
};

/// Header and marker lines that are not events; updates `cpus` and `evidence`.
bool IsHeaderLine(std::string_view line, int* cpus, FormatEvidence* evidence);

/// True when `head` (the first text of a file) is an HTML page, as systrace writes.
bool LooksLikeHtml(std::string_view head);

/// Systrace's HTML page holds the ftrace text in <script class="trace-data"> blocks after
/// megabytes of viewer code: only the lines of those blocks are trace text. Plain text passes.
class HtmlTraceData {
 public:
  /// `html`: the file is an HTML page; `inside`: a reading that starts inside a block.
  HtmlTraceData(bool html, bool inside) : html_(html), inside_(inside) {}
  /// True when `line` is trace text.
  bool Keep(std::string_view line);
  /// True inside an ftrace trace-data block (always for plain text).
  bool inside() const { return !html_ || inside_; }
  /// Trace-data blocks seen.
  int blocks() const { return blocks_; }

 private:
  bool html_;
  bool inside_;
  bool first_line_ = false;  // the next line opens the block: ftrace text or JSON?
  bool other_block_ = false;  // a JSON (Chrome trace) block: not ftrace text
  int blocks_ = 0;
};

/// One run of lines in time order: the second reading merges the runs by time.
struct TextRun {
  uint64_t offset = 0;      ///< plain-text byte where the run starts
  int64_t first_line = 1;   ///< its line number
  bool in_html_data = false;  ///< the run starts inside a systrace trace-data block
};

/// What the first reading found.
struct TextScan {
  std::vector<TextRun> runs;   ///< at least one; split where time goes backwards
  bool too_many_runs = false;  ///< more than kMaxTextRuns: read as one run, clamped
  int64_t lines = 0;
  int64_t event_lines = 0;
  int64_t backwards_on_cpu = 0;  ///< lines earlier than the line before them on their CPU
  int32_t max_cpu = -1;
  int header_cpus = 0;
  bool html = false;  ///< a systrace HTML page
  int html_blocks = 0;  ///< its trace-data blocks
  FormatEvidence evidence;
  int64_t top_buffer_lines = 0;  ///< event lines of the top buffer
  /// Event lines of each buffer instance trace-cmd report named, in the order first seen (at
  /// most kMaxTextBuffers: the lines of more are never read).
  std::vector<std::pair<std::string, int64_t>> instance_lines;
};

/// Buffer instances told apart in a text trace.
constexpr size_t kMaxTextBuffers = 256;

/// Most runs merged at once (each has a reader of its own); more is not a trace merged by
/// CPU but noise, read in file order with time clamped.
constexpr size_t kMaxTextRuns = 256;
/// The same for compressed text, where each run's reader decompresses up to its start.
constexpr size_t kMaxCompressedTextRuns = 64;

/// Reads `path` once, cheaply (no event fields), and fills `scan`.
absl::Status ScanText(const std::string& path, const LoadOptions& options, TextScan* scan);

}  // namespace napiscope::internal
