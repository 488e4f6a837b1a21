#include "load/tracedat_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>

#include "load/time_plausibility.h"
#include "napiscope/tracedat_writer.h"

namespace napiscope::internal {
namespace {

// The clock in brackets of a trace_clock file's text ("local [mono] global" -> "mono"); a
// text without brackets is taken as the name itself.
std::string SelectedClock(const std::string& text) {
  size_t open = text.find('[');
  size_t close = open == std::string::npos ? open : text.find(']', open);
  if (close == std::string::npos) return text;
  return text.substr(open + 1, close - open - 1);
}

// Buffer instances a file may name: each costs a CPU table in memory.
constexpr size_t kMaxBufferInstances = 256;

absl::Status TooManyInstances() {
  return CorruptHeaderError(absl::StrCat("more than ", kMaxBufferInstances, " buffer instances"));
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
    return CorruptHeaderError(
        absl::StrCat(name, " option '", text.substr(0, 40), "' is out of range"));
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

// A CPU listed twice in a buffer's CPU table: one of its two extents would be lost.
absl::Status CheckEachCpuListedOnce(const std::vector<CpuDataExtent>& extents,
                                    const std::string& which) {
  std::vector<int> cpus;
  for (const CpuDataExtent& extent : extents) cpus.push_back(extent.cpu);
  std::sort(cpus.begin(), cpus.end());
  auto twice = std::adjacent_find(cpus.begin(), cpus.end());
  if (twice == cpus.end()) return absl::OkStatus();
  return CorruptHeaderError(
      absl::StrCat("the CPU table of ", which, " lists CPU ", *twice, " twice"));
}

}  // namespace

absl::Status ParseOptions(ByteReader& reader, int version, TraceDatHeader* header,
                          uint64_t* next_section) {
  *next_section = 0;
  for (;;) {
    uint16_t id = 0;
    uint32_t size = 0;
    if (!reader.ReadU16(&id)) return CorruptHeaderError("options end early");
    if (id == kOptionDone && version < 7) return absl::OkStatus();
    if (!reader.ReadU32(&size)) return CorruptHeaderError("options end early");
    if (size > reader.remaining()) return CorruptHeaderError("option larger than its section");
    ByteReader option(reader.here(), size, header->big_endian);
    reader.Skip(size);
    switch (id) {
      case kOptionDone:
        if (!option.ReadU64(next_section)) return CorruptHeaderError("DONE option too short");
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
        if (shift >= 64) return CorruptHeaderError(absl::StrCat("TSC2NSEC option shift ", shift));
        // mult 0 is no conversion (libtracecmd skips it too); any other must be a clock's rate.
        if (mult != 0 && !PlausibleClockScaling(mult, static_cast<int>(shift))) {
          return CorruptHeaderError(absl::StrCat(
              "TSC2NSEC option (mult ", mult, ", shift ", shift, ") makes one clock tick ",
              ClockScalingText(mult, static_cast<int>(shift)),
              " ns; no clock ticks at that rate (1/64 to 1024 ns a tick): a corrupt option"));
        }
        header->time.mult = mult;
        header->time.shift = shift;
        break;
      }
      case kTraceDatOptionTimeShift: {
        absl::Status status = ParseTimeShiftOption(option.here(), option.remaining(),
                                                   header->big_endian, &header->time_shift);
        if (!status.ok()) return status;
        break;
      }
      case kOptionCpuCount: {
        uint32_t cpus = 0;
        if (!option.ReadU32(&cpus)) return CorruptHeaderError("CPUCOUNT option too short");
        if (cpus > static_cast<uint32_t>(kMaxTraceCpus)) {
          return CorruptHeaderError(absl::StrCat("absurd CPU count ", cpus));
        }
        header->cpus = static_cast<int>(cpus);
        break;
      }
      case kOptionBuffer: {
        uint64_t offset = 0;
        std::string name;
        if (!option.ReadU64(&offset) || !option.ReadString(&name)) {
          return CorruptHeaderError("BUFFER option too short");
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
          return CorruptHeaderError("BUFFER option too short");
        }
        header->section_offsets.push_back(offset);
        header->buffer_sections.push_back(offset);
        if (cpu_count > static_cast<uint32_t>(kMaxTraceCpus)) {
          return CorruptHeaderError(absl::StrCat("absurd CPU count ", cpu_count));
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
            return CorruptHeaderError("BUFFER option CPU list too short");
          }
          extent.cpu = static_cast<int>(cpu);
          extents.push_back(extent);
        }
        const std::string which =
            name.empty() ? std::string("the top buffer") : absl::StrCat("buffer '", name, "'");
        absl::Status listed = CheckEachCpuListedOnce(extents, which);
        if (!listed.ok()) return listed;
        // A second list of the same buffer would replace the first, and its CPUs' data be lost.
        bool named_before = name.empty() && header->has_top_buffer;
        for (const TraceDatBuffer& before : header->instances) {
          named_before = named_before || (!name.empty() && before.name == name);
        }
        if (named_before) {
          return CorruptHeaderError(absl::StrCat("two BUFFER options list the CPU data of ", which));
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

}  // namespace napiscope::internal
