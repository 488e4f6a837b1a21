#include "load/tracedat_header.h"

#include "load/buffer_choice.h"
#include "load/tracedat_extents.h"
#include "napiscope/tracedat_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>
#include <event-parse.h>
#include <zstd.h>

namespace napiscope::internal {
namespace {

constexpr char kMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
constexpr uint16_t kOptionDone = 0;
constexpr uint16_t kOptionDate = 1;
constexpr uint16_t kOptionBuffer = 3;
constexpr uint16_t kOptionTraceClock = 4;
constexpr uint16_t kOptionUname = 5;
constexpr uint16_t kOptionOffset = 7;
constexpr uint16_t kOptionCpuCount = 8;
constexpr uint16_t kOptionTimeShift = 12;
constexpr uint16_t kOptionTsc2Nsec = 14;
constexpr uint16_t kOptionHeaderInfo = 16;
constexpr uint16_t kOptionFtraceEvents = 17;
constexpr uint16_t kOptionEventFormats = 18;
constexpr uint16_t kOptionCmdlines = 21;
constexpr uint16_t kOptionFirstSectionRef = 16;  // HEADER_INFO .. CMDLINES point at sections
constexpr uint16_t kOptionLastSectionRef = 21;
constexpr uint16_t kSectionOptions = 0;
constexpr uint64_t kSectionHeaderBytes = 16;
constexpr uint16_t kSectionFlagCompressed = 1;
constexpr uint64_t kMaxSectionBytes = 256ull << 20;  // options are small; refuse absurd sizes
constexpr int kMaxOptionSections = 1024;
constexpr int kMaxCpus = kMaxTraceCpus;
constexpr uint64_t kMaxHeaderPageText = 64 << 10;  // the kernel's text is about 200 bytes

// A bounds-checked reader over a byte range, in the file's endianness.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size, bool big_endian)
      : data_(data), size_(size), big_endian_(big_endian) {}

  bool ReadU16(uint16_t* v) { return ReadInt(2, v); }
  bool ReadU32(uint32_t* v) { return ReadInt(4, v); }
  bool ReadU64(uint64_t* v) { return ReadInt(8, v); }

  bool ReadString(std::string* out) {
    const void* nul = std::memchr(data_ + pos_, 0, size_ - pos_);
    if (nul == nullptr) return false;
    size_t len = static_cast<const uint8_t*>(nul) - (data_ + pos_);
    out->assign(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len + 1;
    return true;
  }

  bool Skip(uint64_t n) {
    if (n > size_ - pos_) return false;
    pos_ += n;
    return true;
  }

  const uint8_t* here() const { return data_ + pos_; }
  size_t remaining() const { return size_ - pos_; }

 private:
  template <typename T>
  bool ReadInt(int bytes, T* v) {
    if (static_cast<size_t>(bytes) > size_ - pos_) return false;
    *v = static_cast<T>(ReadFileInt(data_ + pos_, bytes, big_endian_));
    pos_ += bytes;
    return true;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool big_endian_;
};

// The file, read with pread at explicit offsets.
class FileView {
 public:
  explicit FileView(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileView() { close(fd_); }

  uint64_t size() const { return size_; }
  int fd() const { return fd_; }

  bool Read(uint64_t offset, uint64_t length, std::string* out) const {
    if (offset > size_ || length > size_ - offset) return false;
    out->resize(length);
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = pread(fd_, out->data() + done, length - done, offset + done);
      if (n <= 0) return false;
      done += n;
    }
    return true;
  }

 private:
  int fd_;
  uint64_t size_;
};

// The clock in brackets of a trace_clock file's text ("local [mono] global" -> "mono"); a
// text without brackets is taken as the name itself.
std::string SelectedClock(const std::string& text) {
  size_t open = text.find('[');
  size_t close = open == std::string::npos ? open : text.find(']', open);
  if (close == std::string::npos) return text;
  return text.substr(open + 1, close - open - 1);
}

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("corrupt trace.dat header: ", what));
}

// "flyrecord" and its NUL: the label before each buffer's CPU table.
constexpr uint64_t kFlyrecordLabelBytes = 10;

// Buffer instances a file may name: each costs a CPU table in memory.
constexpr size_t kMaxBufferInstances = 256;

absl::Status TooManyInstances() {
  return Corrupt(absl::StrCat("more than ", kMaxBufferInstances, " buffer instances"));
}

absl::Status Truncated(const std::string& what) {
  return absl::DataLossError(absl::StrCat("truncated trace.dat: ", what));
}

// Reads `count` size-prefixed format texts of `system`.
absl::Status ReadFormats(ByteReader& reader, uint32_t count, const std::string& system,
                         TraceDatHeader* header) {
  if (count > 100000) return Corrupt("absurd event format count");
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    if (!reader.ReadU64(&size) || size > reader.remaining()) {
      return Truncated(absl::StrCat("event formats of '", system.substr(0, 40), "' cut short"));
    }
    header->event_formats.emplace_back(
        system, std::string(reinterpret_cast<const char*>(reader.here()), size));
    reader.Skip(size);
  }
  return absl::OkStatus();
}

// The ftrace formats block: a count, then the formats.
absl::Status ReadFtraceFormats(ByteReader& reader, TraceDatHeader* header) {
  uint32_t count = 0;
  if (!reader.ReadU32(&count)) return Truncated("ftrace formats cut short");
  return ReadFormats(reader, count, "ftrace", header);
}

// The event formats block: a count of systems, each a name, a count and the formats.
absl::Status ReadEventFormats(ByteReader& reader, TraceDatHeader* header) {
  uint32_t systems = 0;
  if (!reader.ReadU32(&systems)) return Truncated("event formats cut short");
  if (systems > 100000) return Corrupt("absurd event system count");
  for (uint32_t s = 0; s < systems; ++s) {
    std::string system;
    uint32_t count = 0;
    if (!reader.ReadString(&system) || !reader.ReadU32(&count)) {
      return Truncated("event formats cut short");
    }
    absl::Status status = ReadFormats(reader, count, system, header);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// A DATE (microseconds, "0x..." text) or OFFSET (nanoseconds, text) option: read as
// libtracecmd reads it (strtoll, any base) and added to the file's time offset, overflow
// checked.
absl::Status AddTimeOffset(ByteReader& option, bool microseconds, TraceDatHeader* header) {
  const char* name = microseconds ? "DATE" : "OFFSET";
  std::string text(reinterpret_cast<const char*>(option.here()),
                   strnlen(reinterpret_cast<const char*>(option.here()), option.remaining()));
  errno = 0;
  long long value = std::strtoll(text.c_str(), nullptr, 0);
  int64_t offset_ns = 0;
  if (errno == ERANGE ||
      __builtin_mul_overflow(static_cast<int64_t>(value), microseconds ? 1000 : 1, &offset_ns) ||
      __builtin_add_overflow(header->time.offset_ns, offset_ns, &header->time.offset_ns)) {
    return Corrupt(absl::StrCat(name, " option '", text.substr(0, 40), "' is out of range"));
  }
  return absl::OkStatus();
}

// The ENABLED_EVENTS option's names ("system:event" per line), sorted; lines that are no such
// name are skipped.
std::vector<std::string> EnabledEventsOf(std::string_view payload) {
  constexpr size_t kMaxNameBytes = 256;  // tracefs names are far shorter
  std::vector<std::string> names;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(payload.data(), payload.size()), '\n')) {
    std::string_view line(piece.data(), piece.size());
    size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos || colon + 1 == line.size() ||
        line.size() > kMaxNameBytes) {
      continue;
    }
    names.emplace_back(line);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Options share one layout in v6 (inline) and v7 (inside an options section).
// Returns the offset of the next options section (v7), 0 when none.
absl::Status ParseOptions(ByteReader& reader, int version, TraceDatHeader* header,
                          uint64_t* next_section) {
  *next_section = 0;
  for (;;) {
    uint16_t id = 0;
    uint32_t size = 0;
    if (!reader.ReadU16(&id)) return Corrupt("options end early");
    if (id == kOptionDone && version < 7) return absl::OkStatus();
    if (!reader.ReadU32(&size)) return Corrupt("options end early");
    if (size > reader.remaining()) return Corrupt("option larger than its section");
    ByteReader option(reader.here(), size, header->big_endian);
    reader.Skip(size);
    switch (id) {
      case kOptionDone:
        if (!option.ReadU64(next_section)) return Corrupt("DONE option too short");
        return absl::OkStatus();
      case kOptionUname:
        option.ReadString(&header->uname);
        break;
      case kOptionTraceClock:  // the trace_clock file: "local [mono] ..." names the one used
        option.ReadString(&header->clock);
        header->clock = SelectedClock(header->clock);
        break;
      case kOptionDate:
      case kOptionOffset: {
        absl::Status status = AddTimeOffset(option, id == kOptionDate, header);
        if (!status.ok()) return status;
        break;
      }
      case kOptionTsc2Nsec: {
        uint32_t mult = 0, shift = 0;
        if (option.remaining() < 16) break;  // libtracecmd ignores a short one too
        option.ReadU32(&mult);
        option.ReadU32(&shift);
        if (shift >= 64) return Corrupt(absl::StrCat("TSC2NSEC option shift ", shift));
        header->time.mult = mult;
        header->time.shift = shift;
        break;
      }
      case kOptionTimeShift: {
        absl::Status status =
            ParseTimeShiftOption(option.here(), option.remaining(), header->big_endian,
                                 &header->time_shift);
        if (!status.ok()) return status;
        break;
      }
      case kOptionCpuCount: {
        uint32_t cpus = 0;
        if (!option.ReadU32(&cpus)) return Corrupt("CPUCOUNT option too short");
        if (cpus > static_cast<uint32_t>(kMaxCpus)) {
          return Corrupt(absl::StrCat("absurd CPU count ", cpus));
        }
        header->cpus = static_cast<int>(cpus);
        break;
      }
      case kOptionBuffer: {
        uint64_t offset = 0;
        std::string name;
        if (!option.ReadU64(&offset) || !option.ReadString(&name)) {
          return Corrupt("BUFFER option too short");
        }
        if (version < 7) {
          // Its CPU table, at `offset`, is read once the CPU count is known (ReadV6Buffers).
          if (!name.empty()) header->instances.push_back(TraceDatBuffer{name, offset, "", {}, {}});
          if (header->instances.size() > kMaxBufferInstances) return TooManyInstances();
          break;
        }
        std::string clock;
        uint32_t page_size = 0, cpu_count = 0;
        if (!option.ReadString(&clock) || !option.ReadU32(&page_size) ||
            !option.ReadU32(&cpu_count)) {
          return Corrupt("BUFFER option too short");
        }
        header->section_offsets.push_back(offset);
        if (cpu_count > static_cast<uint32_t>(kMaxCpus)) {
          return Corrupt(absl::StrCat("absurd CPU count ", cpu_count));
        }
        absl::Status readable;
        if (!name.empty() && page_size != static_cast<uint32_t>(header->page_size)) {
          readable = absl::UnimplementedError(absl::StrCat(
              "buffer '", name, "' has ", page_size, "-byte pages, the file ", header->page_size));
        }
        std::vector<CpuDataExtent> extents;
        for (uint32_t i = 0; i < cpu_count; ++i) {
          uint32_t cpu = 0;
          CpuDataExtent extent;
          if (!option.ReadU32(&cpu) || !option.ReadU64(&extent.offset) ||
              !option.ReadU64(&extent.size)) {
            return Corrupt("BUFFER option CPU list too short");
          }
          extent.cpu = static_cast<int>(cpu);
          extents.push_back(extent);
        }
        if (!name.empty()) {
          if (!readable.ok()) extents.clear();
          header->instances.push_back(
              TraceDatBuffer{name, offset, clock, std::move(extents), readable});
          if (header->instances.size() > kMaxBufferInstances) return TooManyInstances();
          break;
        }
        if (!clock.empty()) header->clock = clock;
        header->has_top_buffer = true;
        header->cpu_data_start = offset;  // the flyrecord section; its data follows it
        header->top_buffer = std::move(extents);
        break;
      }
      case kTraceDatOptionEnabledEvents:
        header->enabled_events = EnabledEventsOf(
            std::string_view(reinterpret_cast<const char*>(option.here()), option.remaining()));
        break;
      case kTraceDatOptionPagesNotKept: {
        // napiscope record's mark of a recording cut short by a full disk.
        uint64_t pages = 0;
        if (option.ReadU64(&pages) && pages > 0) {
          header->warnings.push_back(absl::StrCat(
              "the recording was cut short (its disk was full): ", pages,
              " captured ring-buffer pages are not in the file, so the trace ends early"));
        }
        break;
      }
      default:
        if (id >= kOptionFirstSectionRef && id <= kOptionLastSectionRef && version >= 7) {
          uint64_t section = 0;
          if (option.ReadU64(&section)) {
            header->section_offsets.push_back(section);
            if (id == kOptionHeaderInfo) header->header_info_section = section;
            if (id == kOptionFtraceEvents) header->ftrace_events_section = section;
            if (id == kOptionEventFormats) header->event_formats_section = section;
            if (id == kOptionCmdlines) header->cmdlines_section = section;
          }
        }
        break;
    }
  }
}

absl::Status ReadSection(const FileView& file, uint64_t offset, const TraceDatHeader& header,
                         uint16_t want_id, std::string* content) {
  std::string raw;
  if (!file.Read(offset, 16, &raw)) {
    return Truncated(absl::StrCat("section header at offset ", offset, " is past the end"));
  }
  ByteReader reader(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), header.big_endian);
  uint16_t id = 0, flags = 0;
  uint32_t string_id = 0;
  uint64_t size = 0;
  reader.ReadU16(&id);
  reader.ReadU16(&flags);
  reader.ReadU32(&string_id);
  reader.ReadU64(&size);
  if (id != want_id) {
    return Corrupt(absl::StrCat("expected section ", want_id, " at offset ", offset, ", found ", id));
  }
  if (size > kMaxSectionBytes) return Corrupt(absl::StrCat("section of ", size, " bytes"));
  if (!file.Read(offset + 16, size, &raw)) {
    return Truncated(absl::StrCat("section at offset ", offset, " runs past the end of the file"));
  }
  if (!(flags & kSectionFlagCompressed)) {
    *content = std::move(raw);
    return absl::OkStatus();
  }
  ByteReader sizes(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), header.big_endian);
  uint32_t compressed = 0, uncompressed = 0;
  if (!sizes.ReadU32(&compressed) || !sizes.ReadU32(&uncompressed) ||
      compressed > sizes.remaining() || uncompressed > kMaxSectionBytes) {
    return Corrupt(absl::StrCat("bad compression header in section at offset ", offset));
  }
  if (!CompressedWithZstd(header)) {
    return absl::UnimplementedError(
        absl::StrCat("compression '", header.compression, "' is not supported (zstd is)"));
  }
  content->resize(uncompressed);
  size_t got = ZSTD_decompress(content->data(), uncompressed, sizes.here(), compressed);
  if (ZSTD_isError(got) || got != uncompressed) {
    return Corrupt(absl::StrCat("section at offset ", offset, " does not decompress"));
  }
  return absl::OkStatus();
}

// Reads the id and size of the section at `offset`; false when its header or body passes
// the end.
bool SectionEnd(const FileView& file, uint64_t offset, bool big_endian, uint64_t* end,
                uint16_t* id) {
  std::string raw;
  if (!file.Read(offset, kSectionHeaderBytes, &raw)) return false;
  ByteReader reader(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), big_endian);
  uint64_t size = 0;
  reader.ReadU16(id);
  reader.Skip(6);
  reader.ReadU64(&size);
  if (size > file.size() - offset - kSectionHeaderBytes) return false;
  *end = offset + kSectionHeaderBytes + size;
  return true;
}

// libtracecmd reads v7 sections lazily and stops quietly at a short one, so every section
// the options name, and any that follow the last of them (the strings section), must fit.
absl::Status CheckSectionsFit(const FileView& file, TraceDatHeader* header) {
  uint64_t last_end = 0;
  uint16_t id = 0;
  for (uint64_t offset : header->section_offsets) {
    uint64_t end = 0;
    if (!SectionEnd(file, offset, header->big_endian, &end, &id)) {
      return Truncated(absl::StrCat("section at byte ", offset, " runs past the end of the file (",
                                    file.size(), " bytes)"));
    }
    last_end = std::max(last_end, end);
  }
  for (int trailing = 0; last_end < file.size() && trailing < kMaxOptionSections; ++trailing) {
    uint64_t end = 0;
    if (!SectionEnd(file, last_end, header->big_endian, &end, &id)) {
      return Truncated(absl::StrCat("section at byte ", last_end,
                                    " runs past the end of the file (", file.size(), " bytes)"));
    }
    // trace-cmd links every options section from the one before; one that no link reaches
    // means a link was damaged, and its options (the CPU data, ...) would be silently lost.
    if (id == kSectionOptions) {
      return Corrupt(absl::StrCat("the options section at byte ", last_end,
                                  " is linked from no other (damaged options link)"));
    }
    last_end = end;
  }
  return absl::OkStatus();
}

// The header info block: "header_page", its size, and the page header format text.
absl::Status ReadHeaderPage(ByteReader& reader, TraceDatHeader* header) {
  std::string tag;
  uint64_t size = 0;
  if (!reader.ReadString(&tag) || tag != "header_page" || !reader.ReadU64(&size) ||
      size > reader.remaining() || size > kMaxHeaderPageText) {
    return Corrupt("header_page block missing or cut short");
  }
  header->header_page.assign(reinterpret_cast<const char*>(reader.here()), size);
  return absl::OkStatus();
}

// The saved cmdlines block: its size, then "pid comm" lines.
absl::Status ReadSavedCmdlines(ByteReader& reader, TraceDatHeader* header) {
  uint64_t size = 0;
  if (!reader.ReadU64(&size) || size > reader.remaining()) {
    return Truncated("saved cmdlines cut short");
  }
  header->saved_cmdlines.assign(reinterpret_cast<const char*>(reader.here()), size);
  return absl::OkStatus();
}

// Reads the v7 section at `offset` (none when 0) and hands its content to `walk`.
absl::Status WalkSection(const FileView& file, uint64_t offset, uint16_t id,
                         absl::Status (*walk)(ByteReader&, TraceDatHeader*),
                         TraceDatHeader* header) {
  if (offset == 0) return absl::OkStatus();
  std::string content;
  absl::Status status = ReadSection(file, offset, *header, id, &content);
  if (!status.ok()) return status;
  ByteReader reader(reinterpret_cast<const uint8_t*>(content.data()), content.size(),
                    header->big_endian);
  return walk(reader, header);
}

absl::Status ParseV7(const FileView& file, ByteReader& reader, TraceDatHeader* header) {
  std::string name, version;
  if (!reader.ReadString(&name) || !reader.ReadString(&version)) {
    return Truncated("compression header cut short");
  }
  header->compression = name == "none" ? "none" : absl::StrCat(name, " ", version);
  uint64_t options_offset = 0;
  if (!reader.ReadU64(&options_offset)) return Truncated("first options offset cut short");
  for (int sections = 0; options_offset != 0; ++sections) {
    if (sections >= kMaxOptionSections) return Corrupt("options sections form a loop");
    header->section_offsets.push_back(options_offset);
    std::string content;
    absl::Status status = ReadSection(file, options_offset, *header, kSectionOptions, &content);
    if (!status.ok()) return status;
    ByteReader options(reinterpret_cast<const uint8_t*>(content.data()), content.size(),
                       header->big_endian);
    status = ParseOptions(options, 7, header, &options_offset);
    if (!status.ok()) return status;
  }
  absl::Status status = CheckSectionsFit(file, header);
  if (!status.ok()) return status;
  if (header->header_info_section == 0) return Corrupt("no header_page section");
  if (!header->has_top_buffer) {
    return Corrupt("no option names the trace's CPU data (damaged options link?)");
  }
  status = WalkSection(file, header->header_info_section, kOptionHeaderInfo, &ReadHeaderPage,
                       header);
  if (!status.ok()) return status;
  status = WalkSection(file, header->ftrace_events_section, kOptionFtraceEvents,
                       &ReadFtraceFormats, header);
  if (!status.ok()) return status;
  status = WalkSection(file, header->event_formats_section, kOptionEventFormats,
                       &ReadEventFormats, header);
  if (!status.ok()) return status;
  return WalkSection(file, header->cmdlines_section, kOptionCmdlines, &ReadSavedCmdlines,
                     header);
}

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
    return Truncated("header_page block missing or cut short");
  }
  header->header_page = buf;
  if (!read_cstring(&tag) || tag != "header_event" || !skip_sized(8)) {
    return Truncated("header_event block missing or cut short");
  }
  // The formats run up to kallsyms, a few MB: walk them in a window that grows until they fit.
  std::string formats;
  for (uint64_t formats_window = 4 << 20;; formats_window *= 4) {
    formats_window = std::min<uint64_t>({formats_window, file.size() - pos, kMaxSectionBytes});
    if (!file.Read(pos, formats_window, &formats)) return Truncated("ftrace formats cut short");
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
  if (!skip_sized(4)) return Truncated("kallsyms cut short");
  if (!skip_sized(4)) return Truncated("printk formats cut short");
  uint64_t cmdlines_size = 0;
  if (!read_int(8, &cmdlines_size) || cmdlines_size > kMaxSectionBytes || !read(cmdlines_size)) {
    return Truncated("saved cmdlines cut short");
  }
  header->saved_cmdlines = buf;
  uint64_t cpus = 0;
  if (!read_int(4, &cpus)) return Truncated("CPU count missing");
  if (cpus > static_cast<uint64_t>(kMaxCpus)) {
    return Corrupt(absl::StrCat("absurd CPU count ", cpus));
  }
  header->cpus = static_cast<int>(cpus);
  for (int blocks = 0; blocks < 16; ++blocks) {
    if (!read(10)) return Truncated("no flyrecord section");
    std::string label(buf.data(), strnlen(buf.data(), 10));
    if (label == "latency  " || label == "latency") {
      return absl::UnimplementedError("latency-format trace.dat (no flyrecord data)");
    }
    if (label == "flyrecord") {
      for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
        CpuDataExtent extent;
        extent.cpu = static_cast<int>(cpu);
        if (!read_int(8, &extent.offset) || !read_int(8, &extent.size)) {
          return Truncated("flyrecord CPU table cut short");
        }
        header->top_buffer.push_back(extent);
      }
      header->cpu_data_start = pos;
      return absl::OkStatus();
    }
    if (label.rfind("options", 0) != 0) return Corrupt(absl::StrCat("unexpected block '", label, "'"));
    // Options: read a generous window and parse it in place.
    std::string window;
    uint64_t window_size = std::min<uint64_t>(file.size() - pos, 1 << 20);
    if (!file.Read(pos, window_size, &window)) return Truncated("options cut short");
    ByteReader options(reinterpret_cast<const uint8_t*>(window.data()), window.size(),
                       header->big_endian);
    uint64_t unused;
    absl::Status status = ParseOptions(options, 6, header, &unused);
    if (!status.ok()) return status;
    pos += window.size() - options.remaining();
  }
  return Corrupt("too many option blocks");
}

// The CPU table of each v6 buffer instance: at the offset its BUFFER option gives, a
// flyrecord label and an (offset, size) pair per CPU of the file, as for the top buffer. A
// table that does not read makes that buffer unreadable, not the file (a recording cut short
// before trace-cmd wrote an instance's data leaves its offset 0).
absl::Status ReadV6Buffers(const FileView& file, TraceDatHeader* header) {
  const uint64_t table_bytes = 16 * static_cast<uint64_t>(header->cpus);
  for (TraceDatBuffer& buffer : header->instances) {
    std::string raw;
    if (!file.Read(buffer.section, kFlyrecordLabelBytes + table_bytes, &raw)) {
      buffer.status = Truncated(absl::StrCat("buffer '", buffer.name, "': its CPU table at byte ",
                                             buffer.section, " runs past the end of the file"));
      continue;
    }
    if (raw.compare(0, kFlyrecordLabelBytes,
                    std::string_view("flyrecord\0", kFlyrecordLabelBytes)) != 0) {
      buffer.status = Corrupt(
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

// Puts the extents of the buffer to read in top_buffer (see ReadTraceDatHeader) and notes where
// the others lie.
absl::Status SelectBuffer(const std::string& wanted, TraceDatHeader* header) {
  std::vector<BufferHolding> holdings;
  for (const TraceDatBuffer& buffer : header->instances) {
    // An unreadable buffer may hold events: chosen, it is the error.
    holdings.push_back(
        BufferHolding{buffer.name, !buffer.status.ok() || DataBytes(buffer.extents) > 0});
  }
  std::string name, warning;
  absl::Status status =
      ChooseBuffer(wanted, DataBytes(header->top_buffer) > 0, holdings, &name, &warning);
  if (!status.ok()) return status;
  if (!warning.empty()) header->warnings.push_back(warning);
  const TraceDatBuffer* chosen = nullptr;  // null: the top buffer
  for (const TraceDatBuffer& buffer : header->instances) {
    if (!name.empty() && buffer.name == name && chosen == nullptr) chosen = &buffer;
  }
  if (chosen != nullptr && !chosen->status.ok()) return chosen->status;
  for (const TraceDatBuffer& buffer : header->instances) {
    if (!buffer.status.ok()) {
      header->warnings.push_back(
          absl::StrCat(buffer.status.message(), "; that buffer is not read"));
    }
  }
  const uint64_t table_bytes = kFlyrecordLabelBytes + 16 * static_cast<uint64_t>(header->cpus);
  auto note_other = [&](const std::vector<CpuDataExtent>& extents) {
    for (const CpuDataExtent& extent : extents) {
      // Compressed data: a chunk count, then the chunks its size counts.
      const uint64_t end = extent.offset + extent.size + (CompressedWithZstd(*header) ? 4 : 0);
      if (extent.size > 0) header->other_buffers.emplace_back(extent.offset, end);
    }
  };
  for (const TraceDatBuffer& buffer : header->instances) {
    if (&buffer == chosen) continue;
    if (header->version < 7) {
      header->other_buffers.emplace_back(buffer.section, buffer.section + table_bytes);
    }
    note_other(buffer.extents);
  }
  if (chosen == nullptr) return absl::OkStatus();
  note_other(header->top_buffer);
  header->top_buffer = chosen->extents;
  header->loaded_buffer = chosen->name;
  header->cpu_data_start = chosen->section + (header->version < 7 ? table_bytes : 0);
  if (!chosen->clock.empty()) header->clock = chosen->clock;
  return absl::OkStatus();
}

// libtracecmd (1.3) crashes in its own error path when the header_page text does not parse,
// so parse it first with libtraceevent. Like libtracecmd, trust the page header's commit size
// over the file header's long size: it is the kernel's.
// The trace_clocks whose values are not nanoseconds (the kernel's trace_clocks table with
// in_ns 0): a TSC2NSEC option, which trace-cmd writes for x86-tsc with --tsc2nsec, converts
// them; without it every duration would be off by the clock's rate.
absl::Status CheckClockCountsTime(const TraceDatHeader& header) {
  static constexpr std::string_view kCountingClocks[] = {"x86-tsc", "ppc-tb", "counter", "uptime"};
  if (header.time.mult != 0 || std::find(std::begin(kCountingClocks), std::end(kCountingClocks),
                                         header.clock) == std::end(kCountingClocks)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "recorded with trace_clock ", header.clock,
      ", which counts cycles or events, not time, and the file has no TSC2NSEC option to "
      "convert it (trace-cmd record --tsc2nsec); napiscope needs nanoseconds: record with "
      "trace_clock local, global or mono"));
}

absl::Status CheckHeaderPage(TraceDatHeader* header) {
  std::unique_ptr<tep_handle, decltype(&tep_free)> tep(tep_alloc(), &tep_free);
  if (!tep) return absl::ResourceExhaustedError("out of memory");
  tep_set_loglevel(TEP_LOG_NONE);
  std::string text = header->header_page;
  if (text.empty() ||
      tep_parse_header_page(tep.get(), text.data(), text.size(), header->long_size) != 0) {
    return Corrupt("the header_page format (the ring-buffer page layout) does not parse");
  }
  int commit_size = tep_get_header_page_size(tep.get());
  if (commit_size != 4 && commit_size != 8) {
    return Corrupt(absl::StrCat("header_page gives the page commit field ", commit_size,
                                " bytes (4 or 8 expected)"));
  }
  if (commit_size != header->long_size) {
    header->warnings.push_back(absl::StrCat(
        "the file header says long size ", header->long_size, " but the kernel's page header has ",
        commit_size, "-byte longs; read with ", commit_size));
    header->long_size = commit_size;
  }
  return absl::OkStatus();
}

// libtraceevent (1.7) dereferences NULL on some corrupt formats (a print fmt naming a field
// the format lacks, ...). Parse them first in a child process, where a crash only tells that
// the formats are corrupt.
absl::Status ForkAndParseEventFormats(const TraceDatHeader& header,
                                      const std::vector<size_t>& formats) {
  pid_t child = fork();
  if (child < 0) return absl::OkStatus();  // no check possible; parse them without
  if (child == 0) {
    // Die of the signal itself: no crash handler (sanitizer, fuzzer) reports or saves anything.
    for (int signal_number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
      signal(signal_number, SIG_DFL);
    }
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
    tep_handle* tep = tep_alloc();
    tep_set_loglevel(TEP_LOG_NONE);
    if (tep != nullptr) {
      tep_set_file_bigendian(tep, header.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
      tep_set_long_size(tep, header.long_size);
      for (size_t index : formats) {
        const auto& [system, text] = header.event_formats[index];
        tep_parse_event(tep, text.data(), text.size(), system.c_str());
      }
    }
    _exit(0);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return Corrupt("the event formats hang libtraceevent's parser");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  return Corrupt(absl::StrCat("an event format crashes libtraceevent's parser (",
                              WIFSIGNALED(status) ? "signal " : "exit ",
                              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                              "): the event formats are corrupt"));
}

}  // namespace

absl::Status CheckEventFormatsParse(const TraceDatHeader& header,
                                    const std::vector<size_t>& formats) {
  if (formats.empty()) return absl::OkStatus();
  static std::mutex mutex;
  static auto* parsed = new absl::flat_hash_set<size_t>();  // never freed: lives as the process
  size_t key = absl::HashOf(header.long_size, header.big_endian);
  for (size_t index : formats) key = absl::HashOf(key, header.event_formats[index]);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (parsed->contains(key)) return absl::OkStatus();
  }
  absl::Status status = ForkAndParseEventFormats(header, formats);
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(mutex);
    parsed->insert(key);
  }
  return status;
}

namespace {

// libtracecmd loads each CPU's first page when it opens the file and crashes if that page
// claims more data than a page holds; check that page of uncompressed files first.
absl::Status CheckFirstPages(const FileView& file, const TraceDatHeader& header) {
  if (header.compression != "none") return absl::OkStatus();
  uint64_t page_header = 8 + header.long_size;
  for (const CpuDataExtent& extent : header.top_buffer) {
    if (extent.size == 0) continue;
    std::string raw;
    if (extent.size < page_header || !file.Read(extent.offset, page_header, &raw)) {
      return Truncated(absl::StrCat("CPU ", extent.cpu, " data is shorter than a page header"));
    }
    uint64_t data = PageDataBytes(reinterpret_cast<const uint8_t*>(raw.data()),
                                  header.long_size, header.big_endian);
    if (data > static_cast<uint64_t>(header.page_size) - page_header) {
      return Corrupt(absl::StrCat("CPU ", extent.cpu, " first page (byte ", extent.offset,
                                  ") claims ", data, " bytes of data, more than a ",
                                  header.page_size, "-byte page holds"));
    }
  }
  return absl::OkStatus();
}

// A TIME_SHIFT option whose CPUs do not match the trace's is applied where it can be, as
// libtracecmd applies it, and said.
void AddTimeShiftWarnings(TraceDatHeader* header) {
  std::vector<int> cpus_with_data;
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.size > 0) cpus_with_data.push_back(extent.cpu);
  }
  std::vector<std::string> warnings =
      TimeShiftCpuWarnings(header->time_shift, cpus_with_data, header->cpus);
  header->warnings.insert(header->warnings.end(), warnings.begin(), warnings.end());
}

}  // namespace

__extension__ typedef unsigned __int128 Uint128;  // mul_u64_u32_shr without overflow

TimestampConversion TimeConversionOfCpu(const TraceDatHeader& header, int cpu) {
  TimestampConversion conversion = header.time;
  const GuestTimeShift& shift = header.time_shift;
  if (cpu >= 0 && static_cast<size_t>(cpu) < shift.cpus.size() && !shift.cpus[cpu]->empty()) {
    conversion.host_sync = shift.cpus[cpu];
    conversion.interpolate = shift.interpolate();
  }
  return conversion;
}

uint64_t DataBytes(const std::vector<CpuDataExtent>& extents) {
  uint64_t bytes = 0;
  for (const CpuDataExtent& extent : extents) bytes += extent.size;
  return bytes;
}

uint64_t ConvertTimestamp(const TimestampConversion& conversion, uint64_t raw) {
  if (conversion.host_sync != nullptr &&
      !GuestToHostTime(*conversion.host_sync, conversion.interpolate, raw, &raw)) {
    return UINT64_MAX;
  }
  Uint128 scaled = raw;
  if (conversion.mult != 0) scaled = (scaled * conversion.mult) >> conversion.shift;
  int64_t shifted = 0;
  if (scaled > static_cast<Uint128>(INT64_MAX) ||
      __builtin_add_overflow(static_cast<int64_t>(scaled), conversion.offset_ns, &shifted) ||
      shifted < 0) {
    return UINT64_MAX;
  }
  return static_cast<uint64_t>(shifted);
}

uint64_t MaxChunkBytes(int page_size) {
  return std::min<uint64_t>(kMaxChunkPages * static_cast<uint64_t>(page_size), 64u << 20);
}

uint64_t ReadFileInt(const uint8_t* data, int bytes, bool big_endian) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    int shift = big_endian ? (bytes - 1 - i) * 8 : i * 8;
    value |= static_cast<uint64_t>(data[i]) << shift;
  }
  return value;
}

uint64_t PageDataBytes(const uint8_t* page, int long_size, bool big_endian) {
  constexpr uint64_t kCommitSizeMask = (uint64_t{1} << 27) - 1;  // kbuffer: flags sit above
  return ReadFileInt(page + 8, long_size, big_endian) & kCommitSizeMask;
}

bool HasTraceDatMagic(const char* bytes, size_t size) {
  return size >= sizeof(kMagic) && std::memcmp(bytes, kMagic, sizeof(kMagic)) == 0;
}

absl::Status ReadTraceDatHeader(const std::string& path, const std::string& buffer,
                                TraceDatHeader* header) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return absl::InternalError(std::strerror(errno));
  }
  FileView file(fd, static_cast<uint64_t>(st.st_size));
  header->file_size = file.size();
  std::string head;
  if (!file.Read(0, std::min<uint64_t>(file.size(), 4096), &head) ||
      !HasTraceDatMagic(head.data(), head.size())) {
    return absl::InvalidArgumentError("not a trace.dat file (bad magic)");
  }
  ByteReader reader(reinterpret_cast<const uint8_t*>(head.data()), head.size(), false);
  reader.Skip(sizeof(kMagic));
  std::string version;
  if (!reader.ReadString(&version)) return Truncated("version string cut short");
  header->version = std::atoi(version.c_str());
  if (header->version != 6 && header->version != 7) {
    return absl::UnimplementedError(absl::StrCat("trace.dat version '", version,
                                                 "' is not supported (6 and 7 are)"));
  }
  uint16_t flags = 0;
  if (!reader.ReadU16(&flags)) return Truncated("endianness flags cut short");
  header->big_endian = (flags & 0xff) != 0;
  header->long_size = flags >> 8;
  if ((flags & 0xff) > 1 || (header->long_size != 4 && header->long_size != 8)) {
    return Corrupt(absl::StrCat("bad endianness ", flags & 0xff, " or long size ", flags >> 8));
  }
  ByteReader rest(reader.here(), reader.remaining(), header->big_endian);
  uint32_t page_size = 0;
  if (!rest.ReadU32(&page_size)) return Truncated("page size cut short");
  if (page_size < 256 || page_size > (1u << 24) || (page_size & (page_size - 1)) != 0) {
    return Corrupt(absl::StrCat("page size ", page_size));
  }
  header->page_size = static_cast<int>(page_size);
  absl::Status status = header->version >= 7
                            ? ParseV7(file, rest, header)
                            : ParseV6(file, head.size() - rest.remaining(), header);
  if (status.ok() && header->version < 7) status = ReadV6Buffers(file, header);
  if (status.ok()) status = SelectBuffer(buffer, header);
  if (!status.ok()) return status;
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.offset > file.size() || extent.size > file.size() - extent.offset) {
      return Truncated(absl::StrCat("CPU ", extent.cpu, " data ends at byte ",
                                    extent.offset + extent.size, " but the file has ",
                                    file.size(), " bytes"));
    }
  }
  if (header->cpus == 0) {
    for (const CpuDataExtent& extent : header->top_buffer) {
      header->cpus = std::max(header->cpus, extent.cpu + 1);
    }
  }
  if (header->cpus > kMaxCpus) return Corrupt(absl::StrCat("absurd CPU count ", header->cpus));
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.cpu < 0 || extent.cpu >= header->cpus) {
      return Corrupt(absl::StrCat("data for CPU ", extent.cpu, " in a file of ", header->cpus,
                                  " CPUs"));
    }
  }
  status = CheckClockCountsTime(*header);
  if (status.ok()) status = CheckHeaderPage(header);  // it settles the long size pages use
  if (status.ok()) status = CheckExtentsBackClaims(file.fd(), header);
  if (status.ok()) status = CheckFirstPages(file, *header);
  if (status.ok()) AddTimeShiftWarnings(header);
  return status;
}

}  // namespace napiscope::internal
