#include "load/tracedat_extents.h"

#include <unistd.h>

#include <algorithm>

#include <absl/strings/str_cat.h>

namespace napiscope::internal {
namespace {

// A claim of more CPUs than this beyond the last CPU with data is clamped: analyses and the
// GUI keep state per CPU, and a header must not make them allocate for CPUs it does not back.
constexpr int kMaxCpusWithoutData = 1024;

absl::Status ExtentsCorrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("corrupt trace.dat header: ", what));
}

absl::Status ExtentsTruncated(const std::string& what) {
  return absl::DataLossError(absl::StrCat("truncated trace.dat: ", what));
}

// Bytes an extent takes in the file: compressed data has a 4-byte chunk count before the
// chunks its size counts.
uint64_t ExtentEnd(const CpuDataExtent& extent, bool compressed) {
  return extent.offset + extent.size + (compressed ? 4 : 0);
}

// Two CPUs cannot hold the same bytes: extents that overlap (one chunk read as the data of
// many CPUs) are corrupt, and would cost memory the file does not back.
absl::Status CheckExtentsApart(const TraceDatHeader& header) {
  const bool compressed = header.compression != "none";
  std::vector<const CpuDataExtent*> sorted;
  for (const CpuDataExtent& extent : header.top_buffer) {
    if (extent.size > 0) sorted.push_back(&extent);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const CpuDataExtent* a, const CpuDataExtent* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i]->offset < ExtentEnd(*sorted[i - 1], compressed)) {
      return ExtentsCorrupt(absl::StrCat("the data of CPU ", sorted[i - 1]->cpu, " and CPU ",
                                         sorted[i]->cpu, " overlap at byte ", sorted[i]->offset));
    }
  }
  return absl::OkStatus();
}

// An extent of size 0 (a CPU without data) followed by ring-buffer data that no CPU claims
// is a damaged size: that CPU's events would be silently missing, so say so.
void WarnOfUnclaimedData(int fd, TraceDatHeader* header) {
  const bool compressed = header->compression != "none";
  const uint64_t page_size = static_cast<uint64_t>(header->page_size);
  // Where each known thing starts (CPU data, sections, the end of the file), and the data
  // of the CPUs that have some (apart, so sorted by offset they are sorted by end too).
  std::vector<uint64_t> starts(header->section_offsets);
  std::vector<std::pair<uint64_t, uint64_t>> data;  // [offset, end)
  for (const CpuDataExtent& extent : header->top_buffer) {
    starts.push_back(extent.offset);
    if (extent.size > 0) data.emplace_back(extent.offset, ExtentEnd(extent, compressed));
  }
  for (const auto& [start, end] : header->other_buffers) {  // the buffers not read claim theirs
    starts.push_back(start);
    data.emplace_back(start, end);
  }
  starts.push_back(header->file_size);
  std::sort(starts.begin(), starts.end());
  std::sort(data.begin(), data.end());
  for (const CpuDataExtent& extent : header->top_buffer) {
    // Only offsets in the CPU data count: an empty CPU's offset may be anything (0, ...).
    if (extent.size != 0 || extent.offset < header->cpu_data_start) continue;
    auto after =
        std::upper_bound(data.begin(), data.end(), std::make_pair(extent.offset, UINT64_MAX));
    if (after != data.begin() && std::prev(after)->second > extent.offset) continue;  // inside
    uint64_t next = *std::upper_bound(starts.begin(), starts.end() - 1, extent.offset);
    if (next <= extent.offset) continue;
    uint64_t unclaimed = next - extent.offset;
    if (unclaimed < (compressed ? 12 : page_size)) continue;  // alignment padding at most
    uint8_t bytes[16];
    size_t wanted = compressed ? 4 : 16;
    if (pread(fd, bytes, wanted, static_cast<off_t>(extent.offset)) !=
        static_cast<ssize_t>(wanted)) {
      continue;
    }
    uint64_t content = compressed ? ReadFileInt(bytes, 4, header->big_endian)
                                  : PageDataBytes(bytes, header->long_size, header->big_endian);
    if (content == 0) continue;
    header->warnings.push_back(absl::StrCat(
        "CPU ", extent.cpu, " has no data by the file's CPU table, but ", unclaimed,
        " bytes of ring-buffer data at byte ", extent.offset,
        " belong to no CPU (a damaged size?): CPU ", extent.cpu, "'s events are missing"));
  }
}

}  // namespace

absl::Status CheckExtentsBackClaims(int fd, TraceDatHeader* header) {
  absl::Status status = CheckExtentsApart(*header);
  if (!status.ok()) return status;
  const uint64_t file_size = header->file_size;
  const bool compressed = header->compression != "none";
  const uint64_t page_size = static_cast<uint64_t>(header->page_size);
  int cpus_with_data = 0;
  int last_cpu_with_data = -1;
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.size == 0) continue;
    ++cpus_with_data;
    last_cpu_with_data = std::max(last_cpu_with_data, extent.cpu);
    if (compressed) {
      if (ExtentEnd(extent, true) > file_size) {
        return ExtentsTruncated(absl::StrCat("CPU ", extent.cpu, " data ends at byte ",
                                             ExtentEnd(extent, true), " but the file has ",
                                             file_size, " bytes"));
      }
    } else if (extent.size < page_size) {
      return ExtentsCorrupt(absl::StrCat("CPU ", extent.cpu, " has ", extent.size,
                                         " bytes of data, less than one ", page_size,
                                         "-byte page"));
    }
  }
  if (compressed) {
    uint64_t chunk_bytes = MaxChunkBytes(header->page_size);
    if (chunk_bytes * static_cast<uint64_t>(cpus_with_data) > kMaxChunkBufferBytes) {
      return ExtentsCorrupt(absl::StrCat(cpus_with_data, " CPUs of compressed ", page_size,
                                         "-byte pages would need more than ",
                                         kMaxChunkBufferBytes >> 20, " MiB of chunk buffers"));
    }
  }
  WarnOfUnclaimedData(fd, header);
  // A version 7 table lists only the CPUs with data: the others of CPUCOUNT are CPUs without
  // events, as trace-cmd report counts them, unless the claim is beyond any machine's.
  if (header->cpus > last_cpu_with_data + 1 + kMaxCpusWithoutData) {
    header->warnings.push_back(absl::StrCat(
        "the file claims ", header->cpus, " CPUs but only CPUs below ", last_cpu_with_data + 1,
        " have data; read as ", last_cpu_with_data + 1, " CPUs"));
    header->cpus = last_cpu_with_data + 1;
    auto beyond = [&](const CpuDataExtent& extent) { return extent.cpu >= header->cpus; };
    header->top_buffer.erase(
        std::remove_if(header->top_buffer.begin(), header->top_buffer.end(), beyond),
        header->top_buffer.end());
  }
  return absl::OkStatus();
}

}  // namespace napiscope::internal
