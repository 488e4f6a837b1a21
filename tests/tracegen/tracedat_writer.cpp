#include "tracegen/tracedat_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include <absl/strings/str_cat.h>

namespace napiscope::tracegen {
namespace {

constexpr size_t kPageHeaderBytes = 16;    // u64 timestamp + 64-bit local_t commit
constexpr uint32_t kTypeTimeExtend = 30;   // header_event: time_extend : type == 30
constexpr uint32_t kMaxSmallTypeLen = 28;  // header_event: data max type_len == 28
constexpr uint64_t kDeltaMask = (1u << 27) - 1;
constexpr uint64_t kMissedEvents = 1ull << 31;  // kbuffer MISSING_EVENTS
constexpr uint64_t kMissedStored = 1ull << 30;  // kbuffer MISSING_STORED: count after the data
constexpr uint16_t kOptionUname = 5;
constexpr uint16_t kOptionCpuCount = 8;
constexpr size_t kDrainBytes = 8 << 20;

void PutLe(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

void PutLeAt(std::string* out, size_t at, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) (*out)[at + i] = static_cast<char>(value >> (8 * i));
}

void PutCString(std::string* out, std::string_view text) {
  out->append(text);
  out->push_back('\0');
}

// Everything before the CPU data, as `trace-cmd.dat.v6(5)` lays it out.
std::string BuildHeader(const TraceDatWriterOptions& options, const FormatCatalog& catalog) {
  std::string out("\x17\x08\x44tracing6", 11);
  out.push_back('\0');
  out.push_back(0);  // little endian
  out.push_back(8);  // user-space long size
  PutLe(&out, options.page_size, 4);
  PutCString(&out, "header_page");
  PutLe(&out, catalog.header_page().size(), 8);
  out.append(catalog.header_page());
  PutCString(&out, "header_event");
  PutLe(&out, catalog.header_event().size(), 8);
  out.append(catalog.header_event());
  PutLe(&out, 0, 4);  // no ftrace (function tracer) formats
  std::map<std::string, std::vector<const EventLayout*>> systems;
  for (const EventLayout& event : catalog.events()) systems[event.system].push_back(&event);
  PutLe(&out, systems.size(), 4);
  for (const auto& [system, events] : systems) {
    PutCString(&out, system);
    PutLe(&out, events.size(), 4);
    for (const EventLayout* event : events) {
      PutLe(&out, event->format_text.size(), 8);
      out.append(event->format_text);
    }
  }
  PutLe(&out, 0, 4);  // kallsyms
  PutLe(&out, 0, 4);  // trace_printk formats
  std::string cmdlines;
  for (const auto& [pid, comm] : options.cmdlines) absl::StrAppend(&cmdlines, pid, " ", comm, "\n");
  PutLe(&out, cmdlines.size(), 8);
  out.append(cmdlines);
  PutLe(&out, options.cpus, 4);
  out.append("options  ", 9);
  out.push_back('\0');
  PutLe(&out, kOptionCpuCount, 2);
  PutLe(&out, 4, 4);
  PutLe(&out, options.cpus, 4);
  if (!options.uname.empty()) {
    PutLe(&out, kOptionUname, 2);
    PutLe(&out, options.uname.size() + 1, 4);
    PutCString(&out, options.uname);
  }
  PutLe(&out, 0, 2);  // options done
  out.append("flyrecord", 9);
  out.push_back('\0');
  return out;
}

}  // namespace

TraceDatWriter::~TraceDatWriter() {
  if (fd_ >= 0) close(fd_);
}

absl::Status TraceDatWriter::Open(const std::string& path, const TraceDatWriterOptions& options,
                                  const FormatCatalog& catalog) {
  if (options.cpus < 1 || options.cpus > 4096) {
    return absl::InvalidArgumentError(absl::StrCat("cpus must be 1..4096, not ", options.cpus));
  }
  if (options.page_size < 256 || (options.page_size & (options.page_size - 1)) != 0) {
    return absl::InvalidArgumentError("page size must be a power of two >= 256");
  }
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  path_ = path;
  page_size_ = options.page_size;
  cpus_ = options.cpus;
  cpu_extents_.assign(cpus_, {0, 0});
  std::string header = BuildHeader(options, catalog);
  cpu_table_offset_ = header.size();
  header.append(16 * cpus_, '\0');  // (offset, size) per CPU, filled in by Close
  header.append((page_size_ - header.size() % page_size_) % page_size_, '\0');
  page_.assign(page_size_, '\0');
  return WriteOut(header.data(), header.size());
}

absl::Status TraceDatWriter::BeginCpu(int cpu) {
  if (fd_ < 0) return absl::FailedPreconditionError("writer is not open");
  if (cpu <= current_cpu_ || cpu >= cpus_) {
    return absl::InvalidArgumentError(absl::StrCat("CPU ", cpu, " out of order or out of range"));
  }
  current_cpu_ = cpu;
  cpu_extents_[cpu] = {file_offset_, 0};
  page_used_ = 0;
  last_ts_ns_ = INT64_MIN;
  page_missed_ = false;
  page_missed_count_ = -1;
  missed_pending_ = false;
  return absl::OkStatus();
}

void TraceDatWriter::MarkMissed(int64_t count) {
  missed_pending_ = true;
  missed_pending_count_ = count;
}

void TraceDatWriter::PutRecordHeader(uint32_t type_len, uint32_t delta, int64_t array) {
  size_t at = kPageHeaderBytes + page_used_;
  PutLeAt(&page_, at, type_len | (delta << 5), 4);
  page_used_ += 4;
  if (array >= 0) {
    PutLeAt(&page_, at + 4, static_cast<uint64_t>(array), 4);
    page_used_ += 4;
  }
}

absl::Status TraceDatWriter::Append(TimestampNs ts_ns, std::string_view payload) {
  if (current_cpu_ < 0) return absl::FailedPreconditionError("Append before BeginCpu");
  bool page_empty = page_used_ == 0;
  if (ts_ns < 0 || ts_ns < last_ts_ns_) {
    return absl::InvalidArgumentError(absl::StrCat("CPU ", current_cpu_, ": timestamp ", ts_ns,
                                                   " is before the previous ", last_ts_ns_));
  }
  size_t padded = (payload.size() + 3) & ~size_t{3};
  bool small = payload.size() > 0 && padded / 4 <= kMaxSmallTypeLen;
  size_t record = (small ? 4 : 8) + padded;
  size_t reserved = page_missed_count_ >= 0 ? 8 : 0;
  size_t capacity = page_size_ - kPageHeaderBytes;
  if (record + 8 > capacity) {
    return absl::InvalidArgumentError(absl::StrCat("record of ", payload.size(), " bytes too big"));
  }
  // The first record after a gap must open its page: kbuffer gives only that record the
  // page's missed-events count.
  if (missed_pending_) {
    absl::Status status = FlushPage();
    if (!status.ok()) return status;
    page_missed_ = true;
    page_missed_count_ = missed_pending_count_;
    missed_pending_ = false;
    ++stats_.missed_marks;
    page_empty = true;
    reserved = page_missed_count_ >= 0 ? 8 : 0;
  }
  uint64_t delta = page_empty ? 0 : static_cast<uint64_t>(ts_ns - last_ts_ns_);
  size_t extend = delta > kDeltaMask ? 8 : 0;
  if (!page_empty && page_used_ + extend + record + reserved > capacity) {
    absl::Status status = FlushPage();
    if (!status.ok()) return status;
    page_empty = true;
    delta = 0;
    extend = 0;
    reserved = 0;
  }
  if (page_empty) page_ts_ns_ = ts_ns;
  if (extend > 0) {
    PutRecordHeader(kTypeTimeExtend, static_cast<uint32_t>(delta & kDeltaMask),
                    static_cast<int64_t>(delta >> 27));
    ++stats_.time_extends;
    delta = 0;
  }
  PutRecordHeader(small ? static_cast<uint32_t>(padded / 4) : 0, static_cast<uint32_t>(delta),
                  small ? -1 : static_cast<int64_t>(payload.size() + 4));
  std::memcpy(page_.data() + kPageHeaderBytes + page_used_, payload.data(), payload.size());
  page_used_ += padded;
  last_ts_ns_ = ts_ns;
  ++stats_.records;
  return absl::OkStatus();
}

absl::Status TraceDatWriter::FlushPage() {
  if (page_used_ == 0) return absl::OkStatus();
  uint64_t commit = page_used_;
  if (page_missed_) commit |= kMissedEvents;
  if (page_missed_ && page_missed_count_ >= 0) {
    commit |= kMissedStored;
    PutLeAt(&page_, kPageHeaderBytes + page_used_, static_cast<uint64_t>(page_missed_count_), 8);
  }
  PutLeAt(&page_, 0, static_cast<uint64_t>(page_ts_ns_), 8);
  PutLeAt(&page_, 8, commit, 8);
  absl::Status status = WriteOut(page_.data(), page_.size());
  std::memset(page_.data(), 0, page_.size());
  page_used_ = 0;
  page_missed_ = false;
  page_missed_count_ = -1;
  ++stats_.pages;
  return status;
}

absl::Status TraceDatWriter::EndCpu() {
  if (current_cpu_ < 0) return absl::FailedPreconditionError("EndCpu before BeginCpu");
  if (missed_pending_) {
    return absl::InvalidArgumentError(
        absl::StrCat("CPU ", current_cpu_, ": missed events marked but no event follows"));
  }
  absl::Status status = FlushPage();
  cpu_extents_[current_cpu_].second = file_offset_ - cpu_extents_[current_cpu_].first;
  return status;
}

absl::Status TraceDatWriter::WriteOut(const char* data, size_t size) {
  out_.append(data, size);
  file_offset_ += size;
  return out_.size() >= kDrainBytes ? Drain() : absl::OkStatus();
}

absl::Status TraceDatWriter::Drain() {
  size_t done = 0;
  while (done < out_.size()) {
    ssize_t n = write(fd_, out_.data() + done, out_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::DataLossError(absl::StrCat(path_, ": ", std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  out_.clear();
  return absl::OkStatus();
}

absl::Status TraceDatWriter::Close() {
  if (fd_ < 0) return absl::FailedPreconditionError("writer is not open");
  absl::Status status = Drain();
  std::string table;
  for (const auto& [offset, size] : cpu_extents_) {
    // An empty CPU still needs an offset inside the file.
    PutLe(&table, size == 0 ? file_offset_ : offset, 8);
    PutLe(&table, size, 8);
  }
  if (status.ok() &&
      pwrite(fd_, table.data(), table.size(), static_cast<off_t>(cpu_table_offset_)) !=
          static_cast<ssize_t>(table.size())) {
    status = absl::DataLossError(absl::StrCat(path_, ": ", std::strerror(errno)));
  }
  if (close(fd_) != 0 && status.ok()) {
    status = absl::DataLossError(absl::StrCat(path_, ": ", std::strerror(errno)));
  }
  fd_ = -1;
  return status;
}

}  // namespace napiscope::tracegen
