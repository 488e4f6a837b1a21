#include "load/tracedat_extents.h"

#include <unistd.h>

#include <algorithm>

#include <absl/strings/str_cat.h>

#include "load/tracedat_unclaimed.h"

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
  status = CheckDataClaimed(fd, header);
  if (!status.ok()) return status;
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
