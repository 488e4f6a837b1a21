// Writes trace.dat version 6 files (uncompressed) that trace-cmd, KernelShark and napiscope read:
// the header sections, then each CPU's ring-buffer pages as the kernel's trace_pipe_raw gives them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/status/status.h>

namespace napiscope {

/// trace.dat option of napiscope's own (trace-cmd skips unknown options): 8 bytes, the number
/// of ring-buffer pages a recording captured but could not keep (a full disk); 0 when whole.
constexpr uint16_t kTraceDatOptionPagesNotKept = 0x4e53;

/// trace.dat option of napiscope's own: the "system:event" names enabled while recording, one
/// per line, so that an enabled event the file has none of is known to have never happened.
constexpr uint16_t kTraceDatOptionEnabledEvents = 0x4e54;

/// trace-cmd's TIME_SHIFT option id: a guest trace's clock samples against its host's.
constexpr uint16_t kTraceDatOptionTimeShift = 12;

/// trace-cmd's TIME_SHIFT flag: offsets between two samples are interpolated.
constexpr uint32_t kTraceDatTimeShiftInterpolate = 1;

/// One sample of a guest CPU's clock: from guest time `time`, host time is
/// (guest * scaling >> fraction) + offset.
struct TraceDatTimeShiftSample {
  int64_t time = 0;      ///< guest raw timestamp of the sample
  int64_t offset = 0;    ///< host minus scaled guest time
  int64_t scaling = 1;   ///< guest time multiplier
  int64_t fraction = 0;  ///< fixed-point bits of the scaling (right shift)
};

/// A TIME_SHIFT option as trace-cmd (3.0 and later) writes it into a guest's trace.dat.
struct TraceDatTimeShift {
  uint64_t host_trace_id = 0;  ///< the host trace's id
  uint32_t flags = 0;          ///< kTraceDatTimeShiftInterpolate and protocol bits
  std::vector<std::vector<TraceDatTimeShiftSample>> cpus;  ///< samples per guest CPU
  bool fractions = true;  ///< write the fraction arrays (trace-cmd before 3.0 did not)
};

/// The payload of a TIME_SHIFT option (little endian): trace id, flags, CPU count, per CPU
/// a sample count and the arrays of times, offsets and scalings, then per CPU the fractions.
std::string EncodeTimeShiftOption(const TraceDatTimeShift& shift);

/// One option written as given (id and payload), for tests and tools.
struct TraceDatOption {
  uint16_t id = 0;      ///< option id
  std::string payload;  ///< its bytes, written after the id and a 4-byte size
};

/// The format files of one event system, as tracefs prints events/SYSTEM/EVENT/format.
struct TraceDatEventSystem {
  std::string name;                  ///< "sched"
  std::vector<std::string> formats;  ///< one format file's text per event
};

/// Everything a trace.dat file holds besides the per-CPU data.
struct TraceDatHeader {
  int cpus = 1;                               ///< CPU data slots
  int page_size = 4096;                       ///< ring-buffer sub-buffer size in bytes
  std::string header_page;                    ///< events/header_page
  std::string header_event;                   ///< events/header_event
  std::vector<std::string> ftrace_formats;    ///< formats of the "ftrace" system, may be empty
  std::vector<TraceDatEventSystem> systems;   ///< the other event systems
  std::string kallsyms;                       ///< /proc/kallsyms text, may be empty
  std::string printk_formats;                 ///< printk_formats text, may be empty
  std::vector<std::pair<int32_t, std::string>> cmdlines;  ///< saved cmdlines (pid, comm)
  std::string uname;                          ///< written as the UNAME option when not empty
  /// The instance's trace_clock file ("[local] global ..."), written as the TRACECLOCK option
  /// as trace-cmd does when not empty.
  std::string trace_clock;
  bool reserve_pages_not_kept = false;  ///< write the pages-not-kept option (record does)
  /// Names of buffer instances (tracefs instances) whose data follows the top buffer's, each
  /// named by a BUFFER option as trace-cmd record -B writes them.
  std::vector<std::string> buffer_instances;
  std::vector<TraceDatOption> extra_options;  ///< written after the others, in order
};

/// Streams a trace.dat v6 file: Open, then for each CPU in increasing order BeginCpu,
/// WritePages, EndCpu; then, for each buffer instance in header order, BeginBuffer and its CPUs
/// the same way; then Close. CPUs without BeginCpu have no data, nor instances without
/// BeginBuffer.
/// OK when `path` is absent or a regular file (after symlinks); else an error naming it. A
/// recording is renamed over its output and a failed save removed, so `record` and `live
/// --save-on-fail` refuse a device, pipe or directory there (/dev/null) up front.
absl::Status RequireFileOutput(const std::string& path);

class TraceDatFileWriter {
 public:
  TraceDatFileWriter() = default;
  ~TraceDatFileWriter();
  TraceDatFileWriter(const TraceDatFileWriter&) = delete;
  TraceDatFileWriter& operator=(const TraceDatFileWriter&) = delete;

  /// Bytes Open writes for `header` (everything before the CPU data, page-aligned).
  static uint64_t HeaderBytes(const TraceDatHeader& header);

  /// Creates `path` and writes everything up to the CPU data.
  absl::Status Open(const std::string& path, const TraceDatHeader& header);

  /// Starts the data of `cpu`; CPUs must come in increasing order.
  absl::Status BeginCpu(int cpu);

  /// Ends the buffer being written and starts the data of buffer instance `instance` (an index
  /// into TraceDatHeader::buffer_instances; instances come in that order).
  absl::Status BeginBuffer(size_t instance);

  /// Appends whole pages (a multiple of the page size) to the current CPU's data.
  absl::Status WritePages(std::string_view pages);

  /// Ends the current CPU's data.
  absl::Status EndCpu();

  /// Marks the file as cut short: `pages` captured pages are not in it (needs
  /// reserve_pages_not_kept); written by Close.
  void SetPagesNotKept(uint64_t pages) { pages_not_kept_ = pages; }

  /// Writes the CPU table and closes the file; errors (a full disk) name the file.
  absl::Status Close();

  /// Bytes written to the file so far (header and pages).
  uint64_t bytes() const { return file_offset_; }

 private:
  // One buffer's data: the top buffer's, then each instance's.
  struct Buffer {
    uint64_t table_offset = 0;    // where its flyrecord (offset, size) pairs go
    uint64_t section_offset = 0;  // where its flyrecord label is (instances: BUFFER's offset)
    std::vector<std::pair<uint64_t, uint64_t>> extents;  // (offset, size) by CPU
  };

  absl::Status Write(std::string_view data);
  absl::Status Drain();
  absl::Status PatchAt(uint64_t offset, std::string_view bytes);  // written data, in place

  int fd_ = -1;
  std::string path_;
  size_t page_size_ = 4096;
  int cpus_ = 0;
  int current_cpu_ = -1;
  uint64_t file_offset_ = 0;            // bytes handed to Write so far
  uint64_t pages_not_kept_offset_ = 0;  // where that option's value goes; 0: not reserved
  uint64_t pages_not_kept_ = 0;
  std::vector<Buffer> buffers_;                    // the top buffer, then instances begun
  std::vector<uint64_t> instance_option_offsets_;  // by instance: its BUFFER option's offset
  std::string out_;  // buffered file output
};

}  // namespace napiscope
