// Reads the trace.dat header directly: format facts libtracecmd does not expose, and the
// extents of the per-CPU data so a truncated file is detected instead of silently read short.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <absl/status/status.h>

namespace napiscope::internal {

/// Where one CPU's ring-buffer pages sit in the file.
struct CpuDataExtent {
  int cpu = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

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
  std::vector<std::string> buffer_instances;  ///< names of non-top buffers
  std::vector<CpuDataExtent> top_buffer;      ///< extents of the top buffer's CPU data
  std::vector<uint64_t> section_offsets;     ///< v7 sections the options point at
  uint64_t file_size = 0;
  uint64_t header_info_section = 0;    ///< v7: offset of the header_page/header_event section
  uint64_t ftrace_events_section = 0;  ///< v7: offset of the ftrace formats section
  uint64_t event_formats_section = 0;  ///< v7: offset of the event formats section
  uint64_t cmdlines_section = 0;       ///< v7: offset of the saved cmdlines section
  std::string header_page;           ///< the ring-buffer page header format, as the kernel wrote it
  /// Each event format text with its system ("ftrace" for the ftrace formats).
  std::vector<std::pair<std::string, std::string>> event_formats;
  std::string saved_cmdlines;        ///< "pid comm" lines of the tasks known at record time
  /// Options (DATE, OFFSET, TIME_SHIFT, TSC2NSEC) after which libtracecmd shifts or scales
  /// the ring-buffer timestamps; such files are read through libtracecmd.
  bool libtracecmd_adjusts_time = false;
  std::vector<std::string> warnings;  ///< header facts that disagree but leave the data usable
};

/// True when the file's sections and CPU data are compressed with zstd.
inline bool CompressedWithZstd(const TraceDatHeader& header) {
  return header.compression.rfind("zstd", 0) == 0;
}

/// The `bytes`-byte (at most 8) unsigned integer at `data`, in the file's byte order.
uint64_t ReadFileInt(const uint8_t* data, int bytes, bool big_endian);

/// Bytes of data the header of a ring-buffer page says the page holds: its commit field
/// (after the 8-byte timestamp, `long_size` bytes) without the flag bits.
uint64_t PageDataBytes(const uint8_t* page, int long_size, bool big_endian);

/// True when the first bytes of a file are the trace.dat magic.
bool HasTraceDatMagic(const char* bytes, size_t size);

/// Parses the header of the trace.dat at `path` and checks what libtracecmd would trip over
/// (the page-header format, each CPU's first page); an error says what is wrong in plain words.
absl::Status ReadTraceDatHeader(const std::string& path, TraceDatHeader* header);

/// Parses the event formats at `formats` (indices into header.event_formats) in a forked
/// child first, because libtraceevent crashes on some corrupt formats: a crash or hang there
/// is a DataLoss error instead. A set of formats that parsed is not forked for again.
absl::Status CheckEventFormatsParse(const TraceDatHeader& header,
                                    const std::vector<size_t>& formats);

}  // namespace napiscope::internal
