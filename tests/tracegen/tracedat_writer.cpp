#include "tracegen/tracedat_writer.h"

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

void PutLeAt(std::string* out, size_t at, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) (*out)[at + i] = static_cast<char>(value >> (8 * i));
}

// The embedded formats as a file header.
TraceDatHeader HeaderOf(const TraceDatWriterOptions& options, const FormatCatalog& catalog) {
  TraceDatHeader header;
  header.cpus = options.cpus;
  header.page_size = options.page_size;
  header.header_page = catalog.header_page();
  header.header_event = catalog.header_event();
  std::map<std::string, std::vector<std::string>> systems;
  for (const EventLayout& event : catalog.events()) {
    systems[event.system].emplace_back(event.format_text);
  }
  for (auto& [name, formats] : systems) header.systems.push_back({name, std::move(formats)});
  header.cmdlines = options.cmdlines;
  header.uname = options.uname;
  header.extra_options = options.extra_options;
  header.buffer_instances = options.buffer_instances;
  return header;
}

}  // namespace

absl::Status TraceDatWriter::Open(const std::string& path, const TraceDatWriterOptions& options,
                                  const FormatCatalog& catalog) {
  absl::Status status = file_.Open(path, HeaderOf(options, catalog));
  if (!status.ok()) return status;
  page_size_ = options.page_size;
  page_.assign(page_size_, '\0');
  return absl::OkStatus();
}

absl::Status TraceDatWriter::BeginCpu(int cpu) {
  absl::Status status = file_.BeginCpu(cpu);
  if (!status.ok()) return status;
  current_cpu_ = cpu;
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
  absl::Status status = file_.WritePages(page_);
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
  return status.ok() ? file_.EndCpu() : status;
}

absl::Status TraceDatWriter::Close() { return file_.Close(); }

}  // namespace napiscope::tracegen
