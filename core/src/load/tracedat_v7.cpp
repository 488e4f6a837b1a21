#include "load/tracedat_v7.h"

#include <algorithm>
#include <string>

#include <absl/strings/str_cat.h>
#include <zstd.h>

#include "load/tracedat_blocks.h"
#include "load/tracedat_options.h"
#include "load/zstd_claim.h"

namespace napiscope::internal {
namespace {

constexpr uint16_t kSectionOptions = 0;
constexpr uint64_t kSectionHeaderBytes = 16;
constexpr uint16_t kSectionFlagCompressed = 1;
constexpr int kMaxOptionSections = 1024;

// Reads the section at `offset`, which must have id `want_id`, decompressed into `content`.
absl::Status ReadSection(const FileView& file, uint64_t offset, const TraceDatHeader& header,
                         uint16_t want_id, std::string* content) {
  std::string raw;
  if (!file.Read(offset, 16, &raw)) {
    return TruncatedFileError(
        absl::StrCat("section header at offset ", offset, " is past the end"));
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
    return CorruptHeaderError(
        absl::StrCat("expected section ", want_id, " at offset ", offset, ", found ", id));
  }
  if (size > kMaxSectionBytes)
    return CorruptHeaderError(absl::StrCat("section of ", size, " bytes"));
  if (!file.Read(offset + 16, size, &raw)) {
    return TruncatedFileError(
        absl::StrCat("section at offset ", offset, " runs past the end of the file"));
  }
  if (!(flags & kSectionFlagCompressed)) {
    *content = std::move(raw);
    return absl::OkStatus();
  }
  ByteReader sizes(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), header.big_endian);
  uint32_t compressed = 0, uncompressed = 0;
  if (!sizes.ReadU32(&compressed) || !sizes.ReadU32(&uncompressed) ||
      compressed > sizes.remaining() || uncompressed > kMaxSectionBytes) {
    return CorruptHeaderError(absl::StrCat("bad compression header in section at offset ", offset));
  }
  if (!CompressedWithZstd(header)) {
    return absl::UnimplementedError(
        absl::StrCat("compression '", header.compression, "' is not supported (zstd is)"));
  }
  // The claim is believed only as far as the compressed bytes back it: 256 MiB claimed by a
  // few KB took that memory before the data failed to decompress.
  std::string problem = ZstdClaimProblem(sizes.here(), compressed, uncompressed);
  if (!problem.empty()) {
    return CorruptHeaderError(absl::StrCat("section at offset ", offset, " claims ", uncompressed,
                                           " uncompressed bytes, but ", problem));
  }
  content->resize(uncompressed);
  size_t got = ZSTD_decompress(content->data(), uncompressed, sizes.here(), compressed);
  if (ZSTD_isError(got) || got != uncompressed) {
    return CorruptHeaderError(absl::StrCat("section at offset ", offset, " does not decompress"));
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
      return TruncatedFileError(absl::StrCat(
          "section at byte ", offset, " runs past the end of the file (", file.size(), " bytes)"));
    }
    last_end = std::max(last_end, end);
  }
  for (int trailing = 0; last_end < file.size() && trailing < kMaxOptionSections; ++trailing) {
    uint64_t end = 0;
    if (!SectionEnd(file, last_end, header->big_endian, &end, &id)) {
      return TruncatedFileError(absl::StrCat("section at byte ", last_end,
                                             " runs past the end of the file (", file.size(),
                                             " bytes)"));
    }
    // trace-cmd links every options section from the one before; one that no link reaches
    // means a link was damaged, and its options (the CPU data, ...) would be silently lost.
    if (id == kSectionOptions) {
      return CorruptHeaderError(absl::StrCat("the options section at byte ", last_end,
                                             " is linked from no other (damaged options link)"));
    }
    last_end = end;
  }
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

}  // namespace

absl::Status ParseV7(const FileView& file, ByteReader& reader, TraceDatHeader* header) {
  std::string name, version;
  if (!reader.ReadString(&name) || !reader.ReadString(&version)) {
    return TruncatedFileError("compression header cut short");
  }
  header->compression = name == "none" ? "none" : absl::StrCat(name, " ", version);
  uint64_t options_offset = 0;
  if (!reader.ReadU64(&options_offset)) return TruncatedFileError("first options offset cut short");
  for (int sections = 0; options_offset != 0; ++sections) {
    if (sections >= kMaxOptionSections) return CorruptHeaderError("options sections form a loop");
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
  if (header->header_info_section == 0) return CorruptHeaderError("no header_page section");
  if (!header->has_top_buffer) {
    return CorruptHeaderError("no option names the trace's CPU data (damaged options link?)");
  }
  status =
      WalkSection(file, header->header_info_section, kOptionHeaderInfo, &ReadHeaderPage, header);
  if (!status.ok()) return status;
  status = WalkSection(file, header->ftrace_events_section, kOptionFtraceEvents, &ReadFtraceFormats,
                       header);
  if (!status.ok()) return status;
  status = WalkSection(file, header->event_formats_section, kOptionEventFormats, &ReadEventFormats,
                       header);
  if (!status.ok()) return status;
  return WalkSection(file, header->cmdlines_section, kOptionCmdlines, &ReadSavedCmdlines, header);
}

}  // namespace napiscope::internal
