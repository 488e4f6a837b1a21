// Builds ring-buffer pages (as libtraceevent's kbuffer reads them) from encoded records and
// writes them, with the embedded event formats, through core's trace.dat v6 file writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/event.h"
#include "napiscope/tracedat_writer.h"
#include "tracegen/format_catalog.h"

namespace napiscope::tracegen {

/// What goes into the file besides the events.
struct TraceDatWriterOptions {
  int cpus = 1;
  int page_size = 4096;
  std::vector<std::pair<int32_t, std::string>> cmdlines;  ///< saved cmdlines (pid, comm)
  std::string uname;  ///< written as the UNAME option when not empty
  std::vector<TraceDatOption> extra_options;  ///< more options (TIME_SHIFT ...), in order
  std::vector<std::string> buffer_instances;  ///< instance buffers after the top buffer
};

/// Counts of what the writer produced.
struct TraceDatWriterStats {
  int64_t records = 0;
  int64_t pages = 0;
  int64_t time_extends = 0;
  int64_t missed_marks = 0;
};

/// Streams one CPU at a time: Open, then for each CPU in increasing order BeginCpu, Append
/// (timestamps never decreasing), EndCpu; then for each buffer instance BeginBuffer and its
/// CPUs the same way; then Close. CPUs without BeginCpu get no data.
class TraceDatWriter {
 public:
  TraceDatWriter() = default;
  TraceDatWriter(const TraceDatWriter&) = delete;
  TraceDatWriter& operator=(const TraceDatWriter&) = delete;

  /// Creates `path` and writes everything up to the CPU data.
  absl::Status Open(const std::string& path, const TraceDatWriterOptions& options,
                    const FormatCatalog& catalog = FormatCatalog::Embedded());

  /// Starts the data of `cpu`; CPUs must come in increasing order.
  absl::Status BeginCpu(int cpu);

  /// Starts buffer instance `instance` (an index into the options' buffer_instances, in order).
  absl::Status BeginBuffer(size_t instance) {
    current_cpu_ = -1;
    return file_.BeginBuffer(instance);
  }
  /// Appends one record payload (as RecordEncoder makes it) at `ts_ns`.
  absl::Status Append(TimestampNs ts_ns, std::string_view payload);

  /// The ring buffer lost events before the next Append on this CPU: that record starts a
  /// new page whose header says so (with `count` stored in the page, -1 for unknown).
  void MarkMissed(int64_t count);

  /// Flushes the CPU's last page.
  absl::Status EndCpu();

  /// Writes the CPU table and closes the file.
  absl::Status Close();

  /// What was written so far.
  const TraceDatWriterStats& stats() const { return stats_; }

 private:
  absl::Status FlushPage();
  void PutRecordHeader(uint32_t type_len, uint32_t delta, int64_t array = -1);

  TraceDatFileWriter file_;
  int page_size_ = 4096;
  int current_cpu_ = -1;
  std::string page_;      // the page being filled
  size_t page_used_ = 0;  // data bytes used after the page header
  TimestampNs page_ts_ns_ = 0;
  TimestampNs last_ts_ns_ = 0;
  bool page_missed_ = false;
  int64_t page_missed_count_ = -1;
  bool missed_pending_ = false;
  int64_t missed_pending_count_ = -1;
  TraceDatWriterStats stats_;
};

}  // namespace napiscope::tracegen
