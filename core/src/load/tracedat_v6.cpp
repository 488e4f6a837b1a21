#include "load/tracedat_v6.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include <absl/strings/str_cat.h>

#include "load/tracedat_blocks.h"
#include "load/tracedat_options.h"

namespace napiscope::internal {

// v6 keeps everything inline; walk the size-prefixed blocks to the flyrecord table.
absl::Status ParseV6(const FileView& file, uint64_t start, TraceDatHeader* header) {
  // The header before the CPU data is small except for kallsyms; read it in growing chunks.
  uint64_t pos = start;
  std::string buf;
  auto read = [&](uint64_t length) -> bool {
    if (!file.Read(pos, length, &buf)) return false;
    pos += length;
    return true;
  };
  auto read_int = [&](int bytes, uint64_t* v) -> bool {
    if (!read(bytes)) return false;
    ByteReader r(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), header->big_endian);
    if (bytes == 4) {
      uint32_t v32 = 0;
      r.ReadU32(&v32);
      *v = v32;
      return true;
    }
    return r.ReadU64(v);
  };
  auto skip_sized = [&](int size_bytes) -> bool {
    uint64_t size = 0;
    if (!read_int(size_bytes, &size)) return false;
    if (size > file.size() - pos) return false;
    pos += size;
    return true;
  };
  auto read_cstring = [&](std::string* out) -> bool {
    out->clear();
    for (int i = 0; i < 4096; ++i) {
      if (!read(1)) return false;
      if (buf[0] == '\0') return true;
      out->push_back(buf[0]);
    }
    return false;
  };
  std::string tag;
  uint64_t header_page_size = 0;
  if (!read_cstring(&tag) || tag != "header_page" || !read_int(8, &header_page_size) ||
      header_page_size > kMaxHeaderPageText || !read(header_page_size)) {
    return TruncatedFileError("header_page block missing or cut short");
  }
  header->header_page = buf;
  if (!read_cstring(&tag) || tag != "header_event" || !skip_sized(8)) {
    return TruncatedFileError("header_event block missing or cut short");
  }
  // The formats run up to kallsyms, a few MB: walk them in a window that grows until they fit.
  std::string formats;
  for (uint64_t formats_window = 4 << 20;; formats_window *= 4) {
    formats_window = std::min<uint64_t>({formats_window, file.size() - pos, kMaxSectionBytes});
    if (!file.Read(pos, formats_window, &formats))
      return TruncatedFileError("ftrace formats cut short");
    ByteReader reader(reinterpret_cast<const uint8_t*>(formats.data()), formats.size(),
                      header->big_endian);
    header->event_formats.clear();
    absl::Status formats_status = ReadFtraceFormats(reader, header);
    if (formats_status.ok()) formats_status = ReadEventFormats(reader, header);
    if (formats_status.ok()) {
      pos += formats.size() - reader.remaining();
      break;
    }
    bool whole = formats_window == file.size() - pos || formats_window == kMaxSectionBytes;
    if (whole || !absl::IsDataLoss(formats_status)) return formats_status;
  }
  if (!skip_sized(4)) return TruncatedFileError("kallsyms cut short");
  if (!skip_sized(4)) return TruncatedFileError("printk formats cut short");
  uint64_t cmdlines_size = 0;
  if (!read_int(8, &cmdlines_size) || cmdlines_size > kMaxSectionBytes || !read(cmdlines_size)) {
    return TruncatedFileError("saved cmdlines cut short");
  }
  header->saved_cmdlines = buf;
  uint64_t cpus = 0;
  if (!read_int(4, &cpus)) return TruncatedFileError("CPU count missing");
  if (cpus > static_cast<uint64_t>(kMaxTraceCpus)) {
    return CorruptHeaderError(absl::StrCat("absurd CPU count ", cpus));
  }
  header->cpus = static_cast<int>(cpus);
  for (int blocks = 0; blocks < 16; ++blocks) {
    if (!read(10)) return TruncatedFileError("no flyrecord section");
    std::string label(buf.data(), strnlen(buf.data(), 10));
    if (label == "latency  " || label == "latency") {
      return absl::UnimplementedError("latency-format trace.dat (no flyrecord data)");
    }
    if (label == "flyrecord") {
      // libtracecmd reads as many table entries as a CPUCOUNT option says: of two counts that
      // disagree, the larger is read (the other would drop CPUs), and the disagreement said.
      if (static_cast<uint64_t>(header->cpus) != cpus) {
        header->warnings.push_back(absl::StrCat(
            "the file header says ", cpus, " CPUs but its CPUCOUNT option ", header->cpus,
            ": the CPU table is read as ", std::max<uint64_t>(cpus, header->cpus), " entries"));
        cpus = std::max<uint64_t>(cpus, header->cpus);
        header->cpus = static_cast<int>(cpus);
      }
      for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
        CpuDataExtent extent;
        extent.cpu = static_cast<int>(cpu);
        if (!read_int(8, &extent.offset) || !read_int(8, &extent.size)) {
          return TruncatedFileError("flyrecord CPU table cut short");
        }
        header->top_buffer.push_back(extent);
      }
      header->cpu_data_start = pos;
      header->data_regions.emplace_back(pos, file.size());
      return absl::OkStatus();
    }
    if (label.rfind("options", 0) != 0)
      return CorruptHeaderError(absl::StrCat("unexpected block '", label, "'"));
    // Options: read a generous window and parse it in place.
    std::string window;
    uint64_t window_size = std::min<uint64_t>(file.size() - pos, 1 << 20);
    if (!file.Read(pos, window_size, &window)) return TruncatedFileError("options cut short");
    ByteReader options(reinterpret_cast<const uint8_t*>(window.data()), window.size(),
                       header->big_endian);
    uint64_t unused;
    absl::Status status = ParseOptions(options, 6, header, &unused);
    if (!status.ok()) return status;
    pos += window.size() - options.remaining();
  }
  return CorruptHeaderError("too many option blocks");
}

// A recording cut short before trace-cmd wrote an instance's data leaves its offset 0.
absl::Status ReadV6Buffers(const FileView& file, TraceDatHeader* header) {
  const uint64_t table_bytes = 16 * static_cast<uint64_t>(header->cpus);
  for (TraceDatBuffer& buffer : header->instances) {
    std::string raw;
    if (!file.Read(buffer.section, kFlyrecordLabelBytes + table_bytes, &raw)) {
      buffer.status =
          TruncatedFileError(absl::StrCat("buffer '", buffer.name, "': its CPU table at byte ",
                                          buffer.section, " runs past the end of the file"));
      continue;
    }
    if (raw.compare(0, kFlyrecordLabelBytes,
                    std::string_view("flyrecord\0", kFlyrecordLabelBytes)) != 0) {
      buffer.status = CorruptHeaderError(
          absl::StrCat("buffer '", buffer.name, "': no flyrecord label at byte ", buffer.section));
      continue;
    }
    const uint8_t* table = reinterpret_cast<const uint8_t*>(raw.data()) + kFlyrecordLabelBytes;
    for (int cpu = 0; cpu < header->cpus; ++cpu) {
      buffer.extents.push_back(
          CpuDataExtent{cpu, ReadFileInt(table + 16 * cpu, 8, header->big_endian),
                        ReadFileInt(table + 16 * cpu + 8, 8, header->big_endian)});
    }
  }
  return absl::OkStatus();
}

}  // namespace napiscope::internal
