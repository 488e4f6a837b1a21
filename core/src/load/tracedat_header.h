// The facts of a trace.dat header that napiscope reads itself (tracedat_header_reader.h):
// format facts libtracecmd does not expose, and the extents of the per-CPU data so a truncated
// file is detected instead of silently read short.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <absl/status/status.h>

#include "load/tracedat_time_shift.h"

namespace napiscope::internal {

/// Where one CPU's ring-buffer pages sit in the file.
struct CpuDataExtent {
  int cpu = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// A buffer instance (a tracefs instance recorded with trace-cmd record -B) beside the top
/// buffer: its name and where its CPU data is.
struct TraceDatBuffer {
  std::string name;                    ///< the instance's name
  uint64_t section = 0;                ///< offset of its flyrecord label (v6) or section (v7)
  std::string clock;                   ///< v7: its trace_clock, "" when not said
  std::vector<CpuDataExtent> extents;  ///< its CPU data
  /// Why it cannot be read (its table outside the file, ...); OK when it can. Only an error
  /// when it is the buffer to read: the others still read.
  absl::Status status;
};

/// Bytes of CPU data `extents` hold in all.
uint64_t DataBytes(const std::vector<CpuDataExtent>& extents);

/// How trace-cmd turns a file's raw ring-buffer timestamps into the times it shows (its
/// timestamp_calc): a guest's CPU clock synchronised to its host's when a TIME_SHIFT option
/// gives samples for the CPU, then scaled by `mult >> shift` when a TSC2NSEC option gives
/// them, then moved by the sum of the DATE (microseconds) and OFFSET (nanoseconds) options.
struct TimestampConversion {
  uint32_t mult = 0;   ///< TSC2NSEC multiplier, 0 when there is none
  uint32_t shift = 0;  ///< TSC2NSEC shift
  int64_t offset_ns = 0;
  /// TIME_SHIFT samples of the CPU being read (set per CPU by the loader), null when none.
  std::shared_ptr<const TimeShiftSamples> host_sync;
  bool interpolate = false;  ///< TIME_SHIFT offsets are interpolated between samples
  bool identity() const { return mult == 0 && offset_ns == 0 && host_sync == nullptr; }
};

/// The converted time of raw timestamp `raw`, or UINT64_MAX when it falls outside 0..2^63
/// (an impossible time, skipped and counted by the decoder).
uint64_t ConvertTimestamp(const TimestampConversion& conversion, uint64_t raw);

/// The header facts of a trace.dat file.
struct TraceDatHeader {
  int version = 0;
  bool big_endian = false;
  int long_size = 0;
  int page_size = 0;
  std::string compression = "none";  ///< "none" or "name version"
  int cpus = 0;
  std::string uname;
  std::string clock;
  std::vector<TraceDatBuffer> instances;  ///< the buffers beside the top buffer
  std::vector<CpuDataExtent> top_buffer;  ///< the top buffer's CPU data; the loaded one's once read
  std::string loaded_buffer;  ///< the instance top_buffer holds once read, "" for the top buffer
  /// The bytes of the buffers not loaded, [start, end): their labels, tables and data (and a
  /// loaded v6 instance's label and table): bytes that are no CPU data of the buffer read.
  std::vector<std::pair<uint64_t, uint64_t>> other_buffers;
  std::vector<uint64_t> section_offsets;  ///< v7 sections the options point at
  std::vector<uint64_t> buffer_sections;  ///< v7: the flyrecord section of every BUFFER option
  /// v6: where CPU data may lie, [start, end): from the top buffer's CPU table to the end.
  std::vector<std::pair<uint64_t, uint64_t>> data_regions;
  int header_page_bytes = 0;  ///< the page size the kernel's header_page describes
  bool has_top_buffer = false;            ///< v7: a BUFFER option names the top buffer
  uint64_t cpu_data_start = 0;            ///< CPU data lies after this (header, table)
  uint64_t file_size = 0;
  uint64_t header_info_section = 0;    ///< v7: offset of the header_page/header_event section
  uint64_t ftrace_events_section = 0;  ///< v7: offset of the ftrace formats section
  uint64_t event_formats_section = 0;  ///< v7: offset of the event formats section
  uint64_t cmdlines_section = 0;       ///< v7: offset of the saved cmdlines section
  std::string header_page;  ///< the ring-buffer page header format, as the kernel wrote it
  /// Each event format text with its system ("ftrace" for the ftrace formats).
  std::vector<std::pair<std::string, std::string>> event_formats;
  std::string saved_cmdlines;  ///< "pid comm" lines of the tasks known at record time
  /// DATE, OFFSET and TSC2NSEC options, applied by napiscope's own reader.
  TimestampConversion time;
  /// The TIME_SHIFT option (a guest's clock synchronised to its host's), applied per CPU by
  /// napiscope's own reader (TimeConversionOfCpu).
  GuestTimeShift time_shift;
  std::vector<std::string> warnings;  ///< header facts that disagree but leave the data usable
  /// napiscope record's list of the events it enabled ("system:event", sorted); empty when the
  /// file does not say (trace-cmd's files).
  std::vector<std::string> enabled_events;
};

/// The conversion of CPU `cpu`'s raw timestamps: the file's, with the CPU's TIME_SHIFT samples.
TimestampConversion TimeConversionOfCpu(const TraceDatHeader& header, int cpu);

/// True when the file's sections and CPU data are compressed with zstd.
inline bool CompressedWithZstd(const TraceDatHeader& header) {
  return header.compression.rfind("zstd", 0) == 0;
}

/// Most CPUs a file may claim (the kernel's NR_CPUS limit is 8192; 2^16 leaves room).
constexpr int kMaxTraceCpus = 1 << 16;

/// Most bytes napiscope keeps for decompressed chunks of all CPUs at once (each CPU with
/// data holds one chunk): a claim past it (thousands of CPUs of huge pages) is refused.
constexpr uint64_t kMaxChunkBufferBytes = 256ull << 20;

/// Pages one compressed chunk may hold (trace-cmd writes 10): a chunk claiming more is
/// corrupt, so a few bytes of zstd never decompress into more than this.
constexpr uint64_t kMaxChunkPages = 16;

/// Most uncompressed bytes of one chunk for pages of `page_size` bytes.
uint64_t MaxChunkBytes(int page_size);

/// The `bytes`-byte (at most 8) unsigned integer at `data`, in the file's byte order.
uint64_t ReadFileInt(const uint8_t* data, int bytes, bool big_endian);

/// Bytes of data the header of a ring-buffer page says the page holds: its commit field
/// (after the 8-byte timestamp, `long_size` bytes) without the flag bits.
uint64_t PageDataBytes(const uint8_t* page, int long_size, bool big_endian);

}  // namespace napiscope::internal
