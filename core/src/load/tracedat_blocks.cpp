#include "load/tracedat_blocks.h"

#include <string>

#include <absl/strings/str_cat.h>

namespace napiscope::internal {
namespace {

// Reads `count` size-prefixed format texts of `system`.
absl::Status ReadFormats(ByteReader& reader, uint32_t count, const std::string& system,
                         TraceDatHeader* header) {
  if (count > 100000) return CorruptHeaderError("absurd event format count");
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    if (!reader.ReadU64(&size) || size > reader.remaining()) {
      return TruncatedFileError(
          absl::StrCat("event formats of '", system.substr(0, 40), "' cut short"));
    }
    header->event_formats.emplace_back(
        system, std::string(reinterpret_cast<const char*>(reader.here()), size));
    reader.Skip(size);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadFtraceFormats(ByteReader& reader, TraceDatHeader* header) {
  uint32_t count = 0;
  if (!reader.ReadU32(&count)) return TruncatedFileError("ftrace formats cut short");
  return ReadFormats(reader, count, "ftrace", header);
}

absl::Status ReadEventFormats(ByteReader& reader, TraceDatHeader* header) {
  uint32_t systems = 0;
  if (!reader.ReadU32(&systems)) return TruncatedFileError("event formats cut short");
  if (systems > 100000) return CorruptHeaderError("absurd event system count");
  for (uint32_t s = 0; s < systems; ++s) {
    std::string system;
    uint32_t count = 0;
    if (!reader.ReadString(&system) || !reader.ReadU32(&count)) {
      return TruncatedFileError("event formats cut short");
    }
    absl::Status status = ReadFormats(reader, count, system, header);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ReadHeaderPage(ByteReader& reader, TraceDatHeader* header) {
  std::string tag;
  uint64_t size = 0;
  if (!reader.ReadString(&tag) || tag != "header_page" || !reader.ReadU64(&size) ||
      size > reader.remaining() || size > kMaxHeaderPageText) {
    return CorruptHeaderError("header_page block missing or cut short");
  }
  header->header_page.assign(reinterpret_cast<const char*>(reader.here()), size);
  return absl::OkStatus();
}

absl::Status ReadSavedCmdlines(ByteReader& reader, TraceDatHeader* header) {
  uint64_t size = 0;
  if (!reader.ReadU64(&size) || size > reader.remaining()) {
    return TruncatedFileError("saved cmdlines cut short");
  }
  header->saved_cmdlines.assign(reinterpret_cast<const char*>(reader.here()), size);
  return absl::OkStatus();
}

}  // namespace napiscope::internal
