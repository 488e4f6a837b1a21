// Reads the trace.dat header directly: format facts libtracecmd does not expose, and the
// extents of the per-CPU data so a truncated file is detected instead of silently read short.
#pragma once

#include <cstdint>
#include <string>
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
};

/// True when the first bytes of a file are the trace.dat magic.
bool HasTraceDatMagic(const char* bytes, size_t size);

/// Parses the header of the trace.dat at `path`; an error says what is wrong in plain words.
absl::Status ReadTraceDatHeader(const std::string& path, TraceDatHeader* header);

}  // namespace napiscope::internal
