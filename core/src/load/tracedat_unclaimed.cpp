#include "load/tracedat_unclaimed.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <absl/strings/str_cat.h>

#include "load/tracedat_bytes.h"

namespace napiscope::internal {
namespace {

using Range = std::pair<uint64_t, uint64_t>;  // [start, end)

constexpr uint16_t kSectionFlyrecord = 3;
// Places looked at in each stretch no CPU claims: its start, the empty CPUs' offsets in it (at
// most 64) and its first 1024 page-aligned offsets (alignment padding is zeros, data starts on
// a page), so a file followed by gigabytes of zeros costs a few reads.
constexpr size_t kMaxEmptyCpuProbes = 64;
constexpr uint64_t kMaxPageProbes = 1024;

bool ReadAt(int fd, uint64_t offset, uint8_t* out, size_t bytes) {
  return pread(fd, out, bytes, static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes);
}

// Bytes a CPU's extent takes: compressed data has a 4-byte chunk count before its chunks.
uint64_t ExtentEndOf(const CpuDataExtent& extent, bool compressed) {
  return extent.offset + extent.size + (compressed ? 4 : 0);
}

// True when ring-buffer data starts at `at` (before `end`): a page whose header's commit lies
// within the page, or a chunk count and a first chunk that is a zstd frame.
bool DataStartsAt(int fd, const TraceDatHeader& header, uint64_t at, uint64_t end) {
  uint8_t bytes[16];
  if (CompressedWithZstd(header)) {
    static constexpr uint8_t kZstdMagic[] = {0x28, 0xb5, 0x2f, 0xfd};
    if (end - at < sizeof(bytes) || !ReadAt(fd, at, bytes, sizeof(bytes))) return false;
    const uint64_t chunks = ReadFileInt(bytes, 4, header.big_endian);
    const uint64_t compressed = ReadFileInt(bytes + 4, 4, header.big_endian);
    return chunks > 0 && compressed >= 4 && compressed <= end - at - 12 &&
           std::memcmp(bytes + 12, kZstdMagic, sizeof(kZstdMagic)) == 0;
  }
  const uint64_t page_header = 8 + static_cast<uint64_t>(header.long_size);
  if (end - at < page_header || !ReadAt(fd, at, bytes, page_header)) return false;
  const uint64_t data = PageDataBytes(bytes, header.long_size, header.big_endian);
  return data > 0 && data <= static_cast<uint64_t>(header.page_size) - page_header &&
         data <= end - at - page_header;
}

// Where CPU data may lie: v6's region after the table, v7's flyrecord sections.
std::vector<Range> DataRegions(int fd, const TraceDatHeader& header) {
  std::vector<Range> regions = header.data_regions;
  for (uint64_t section : header.buffer_sections) {
    uint8_t bytes[16];
    if (section > header.file_size || !ReadAt(fd, section, bytes, sizeof(bytes)) ||
        ReadFileInt(bytes, 2, header.big_endian) != kSectionFlyrecord) {
      continue;
    }
    const uint64_t size = ReadFileInt(bytes + 8, 8, header.big_endian);
    const uint64_t start = section + sizeof(bytes);
    if (start > header.file_size) continue;
    regions.emplace_back(start, start + std::min(size, header.file_size - start));
  }
  return regions;
}

// The stretches of `regions` that no range of `claimed` (sorted) covers.
std::vector<Range> Gaps(const std::vector<Range>& regions, const std::vector<Range>& claimed) {
  std::vector<Range> gaps;
  for (const auto& [start, end] : regions) {
    uint64_t pos = start;
    for (const auto& [claim_start, claim_end] : claimed) {
      if (claim_end <= pos) continue;
      if (claim_start >= end) break;
      if (claim_start > pos) gaps.emplace_back(pos, claim_start);
      pos = std::max(pos, claim_end);
    }
    if (pos < end) gaps.emplace_back(pos, end);
  }
  return gaps;
}

}  // namespace

absl::Status CheckDataClaimed(int fd, TraceDatHeader* header) {
  // A buffer that cannot be read (its table outside the file, ...) leaves its data unclaimed,
  // and its warning already says that buffer is not read.
  for (const TraceDatBuffer& buffer : header->instances) {
    if (!buffer.status.ok()) return absl::OkStatus();
  }
  const bool compressed = CompressedWithZstd(*header);
  const uint64_t page_size = static_cast<uint64_t>(header->page_size);
  std::vector<Range> claimed(header->other_buffers);
  std::vector<Range> empty_cpus;  // (offset, cpu) of the CPUs the table gives no data
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.size > 0) {
      claimed.emplace_back(extent.offset, ExtentEndOf(extent, compressed));
    } else {
      empty_cpus.emplace_back(extent.offset, static_cast<uint64_t>(extent.cpu));
    }
  }
  std::sort(claimed.begin(), claimed.end());
  std::sort(empty_cpus.begin(), empty_cpus.end());
  uint64_t unclaimed_bytes = 0, first_unclaimed = 0;
  for (const Range& gap : Gaps(DataRegions(fd, *header), claimed)) {
    const uint64_t start = gap.first, end = gap.second;
    std::vector<uint64_t> probes = {start};
    for (auto it = std::lower_bound(empty_cpus.begin(), empty_cpus.end(), Range{start, 0});
         it != empty_cpus.end() && it->first < end && probes.size() <= kMaxEmptyCpuProbes;
         ++it) {
      probes.push_back(it->first);
    }
    uint64_t page = (start + page_size - 1) / page_size * page_size;
    for (uint64_t probe = 0; probe < kMaxPageProbes && page < end; ++probe, page += page_size) {
      probes.push_back(page);
    }
    std::sort(probes.begin(), probes.end());
    auto data = std::find_if(probes.begin(), probes.end(),
                             [&](uint64_t at) { return DataStartsAt(fd, *header, at, end); });
    if (data == probes.end()) continue;
    const uint64_t at = *data, bytes = end - at;
    if (unclaimed_bytes == 0) first_unclaimed = at;
    unclaimed_bytes += bytes;
    auto cpu = std::lower_bound(empty_cpus.begin(), empty_cpus.end(), Range{at, 0});
    if (cpu != empty_cpus.end() && cpu->first == at) {
      header->warnings.push_back(absl::StrCat(
          "CPU ", cpu->second, " has no data by the file's CPU table, but ", bytes,
          " bytes of ring-buffer data at byte ", at, " belong to no CPU (a damaged size?): CPU ",
          cpu->second, "'s events are missing"));
    } else {
      header->warnings.push_back(absl::StrCat(
          bytes, " bytes of ring-buffer data at byte ", at,
          " belong to no CPU of the file's CPU table (a damaged table?): their events are "
          "missing"));
    }
  }
  if (unclaimed_bytes > 0 && DataBytes(header->top_buffer) == 0) {
    return CorruptHeaderError(absl::StrCat(
        "no CPU has data by the file's CPU table, but ", unclaimed_bytes,
        " bytes of ring-buffer data at byte ", first_unclaimed,
        " belong to none (a table left empty by a recording that was killed, or damaged)"));
  }
  return absl::OkStatus();
}

}  // namespace napiscope::internal
