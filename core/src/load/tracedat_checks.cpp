#include "load/tracedat_checks.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <absl/strings/str_cat.h>
#include <event-parse.h>

namespace napiscope::internal {
namespace {

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
      return CorruptHeaderError("the event formats hang libtraceevent's parser");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  return CorruptHeaderError(absl::StrCat(
      "an event format crashes libtraceevent's parser (", WIFSIGNALED(status) ? "signal " : "exit ",
      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
      "): the event formats are corrupt"));
}

}  // namespace

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
    return CorruptHeaderError(
        "the header_page format (the ring-buffer page layout) does not parse");
  }
  int commit_size = tep_get_header_page_size(tep.get());
  if (commit_size != 4 && commit_size != 8) {
    return CorruptHeaderError(absl::StrCat("header_page gives the page commit field ", commit_size,
                                           " bytes (4 or 8 expected)"));
  }
  header->header_page_bytes = tep_get_sub_buffer_size(tep.get());
  if (commit_size != header->long_size) {
    header->warnings.push_back(absl::StrCat("the file header says long size ", header->long_size,
                                            " but the kernel's page header has ", commit_size,
                                            "-byte longs; read with ", commit_size));
    header->long_size = commit_size;
  }
  return absl::OkStatus();
}

absl::Status CheckPageSizeAgrees(const TraceDatHeader& header) {
  if (header.header_page_bytes == header.page_size) return absl::OkStatus();
  return CorruptHeaderError(absl::StrCat(
      "the file header says ", header.page_size, "-byte pages but the kernel's header_page "
      "describes ", header.header_page_bytes,
      "-byte pages: read at the wrong size, pages would be lost"));
}

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

absl::Status CheckFirstPages(const FileView& file, const TraceDatHeader& header) {
  if (header.compression != "none") return absl::OkStatus();
  uint64_t page_header = 8 + header.long_size;
  for (const CpuDataExtent& extent : header.top_buffer) {
    if (extent.size == 0) continue;
    std::string raw;
    if (extent.size < page_header || !file.Read(extent.offset, page_header, &raw)) {
      return TruncatedFileError(
          absl::StrCat("CPU ", extent.cpu, " data is shorter than a page header"));
    }
    uint64_t data = PageDataBytes(reinterpret_cast<const uint8_t*>(raw.data()), header.long_size,
                                  header.big_endian);
    if (data > static_cast<uint64_t>(header.page_size) - page_header) {
      return CorruptHeaderError(
          absl::StrCat("CPU ", extent.cpu, " first page (byte ", extent.offset, ") claims ", data,
                       " bytes of data, more than a ", header.page_size, "-byte page holds"));
    }
  }
  return absl::OkStatus();
}

void AddTimeShiftWarnings(TraceDatHeader* header) {
  std::vector<int> cpus_with_data;
  for (const CpuDataExtent& extent : header->top_buffer) {
    if (extent.size > 0) cpus_with_data.push_back(extent.cpu);
  }
  std::vector<std::string> warnings =
      TimeShiftCpuWarnings(header->time_shift, cpus_with_data, header->cpus);
  header->warnings.insert(header->warnings.end(), warnings.begin(), warnings.end());
}

}  // namespace napiscope::internal
