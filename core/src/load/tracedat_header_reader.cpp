#include "load/tracedat_header_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <absl/strings/str_cat.h>

#include "load/buffer_choice.h"
#include "load/tracedat_bytes.h"
#include "load/tracedat_checks.h"
#include "load/tracedat_extents.h"
#include "load/tracedat_v6.h"
#include "load/tracedat_v7.h"

namespace napiscope::internal {
namespace {

constexpr char kMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

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
  if (header->version < 7) {  // its label and table are no CPU's data either
    header->other_buffers.emplace_back(chosen->section, chosen->section + table_bytes);
  }
  header->top_buffer = chosen->extents;
  header->loaded_buffer = chosen->name;
  header->cpu_data_start = chosen->section + (header->version < 7 ? table_bytes : 0);
  if (!chosen->clock.empty()) header->clock = chosen->clock;
  return absl::OkStatus();
}

}  // namespace

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
  if (!reader.ReadString(&version)) return TruncatedFileError("version string cut short");
  header->version = std::atoi(version.c_str());
  if (header->version != 6 && header->version != 7) {
    return absl::UnimplementedError(
        absl::StrCat("trace.dat version '", version, "' is not supported (6 and 7 are)"));
  }
  uint16_t flags = 0;
  if (!reader.ReadU16(&flags)) return TruncatedFileError("endianness flags cut short");
  header->big_endian = (flags & 0xff) != 0;
  header->long_size = flags >> 8;
  if ((flags & 0xff) > 1 || (header->long_size != 4 && header->long_size != 8)) {
    return CorruptHeaderError(
        absl::StrCat("bad endianness ", flags & 0xff, " or long size ", flags >> 8));
  }
  ByteReader rest(reader.here(), reader.remaining(), header->big_endian);
  uint32_t page_size = 0;
  if (!rest.ReadU32(&page_size)) return TruncatedFileError("page size cut short");
  if (page_size < 256 || page_size > (1u << 24) || (page_size & (page_size - 1)) != 0) {
    return CorruptHeaderError(absl::StrCat("page size ", page_size));
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
      return TruncatedFileError(absl::StrCat("CPU ", extent.cpu, " data ends at byte ",
                                             extent.offset + extent.size, " but the file has ",
                                             file.size(), " bytes"));
    }
  }
  if (header->cpus == 0) {
    for (const CpuDataExtent& extent : header->top_buffer) {
      header->cpus = std::max(header->cpus, extent.cpu + 1);
    }
  }
  if (header->cpus > kMaxTraceCpus)
    return CorruptHeaderError(absl::StrCat("absurd CPU count ", header->cpus));
  if (header->cpus == 0) {
    return CorruptHeaderError("the file has 0 CPUs (its CPU count is 0 and its CPU table lists none)");
  }
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.cpu < 0 || extent.cpu >= header->cpus) {
      return CorruptHeaderError(
          absl::StrCat("data for CPU ", extent.cpu, " in a file of ", header->cpus, " CPUs"));
    }
  }
  status = CheckClockCountsTime(*header);
  if (status.ok()) status = CheckHeaderPage(header);  // it settles the long size pages use
  if (status.ok()) status = CheckExtentsBackClaims(file.fd(), header);
  if (status.ok()) status = CheckPageSizeAgrees(*header);
  if (status.ok()) status = CheckFirstPages(file, *header);
  if (status.ok()) AddTimeShiftWarnings(header);
  return status;
}

}  // namespace napiscope::internal
