#include "load/cpu_record_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <absl/strings/str_cat.h>
#include "load/tracecmd_cxx.h"
extern "C" {  // kbuffer.h has no C++ guard
#include <traceevent/kbuffer.h>
}

namespace napiscope::internal {

TracecmdCpuReader::~TracecmdCpuReader() { tracecmd_free_record(current_); }

bool TracecmdCpuReader::Next(RawRecord* record) {
  tracecmd_free_record(current_);
  current_ = started_ ? tracecmd_read_data(handle_, cpu_) : tracecmd_read_cpu_first(handle_, cpu_);
  started_ = true;
  if (current_ == nullptr) return false;
  record->data = current_->data;
  record->size = current_->size;
  record->ts_ns = current_->ts;
  record->missed_events = current_->missed_events;
  record->offset = current_->offset;
  return true;
}

PageCpuReader::PageCpuReader(int fd, const PageLayout& layout, const CpuDataExtent& extent)
    : fd_(fd), layout_(layout), extent_(extent), page_offset_(extent.offset) {
  kbuf_ = kbuffer_alloc(layout.header_long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                        layout.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
  if (layout.page_size > 0) block_.resize(kBlockPages * static_cast<size_t>(layout.page_size));
  done_ = extent.size == 0 || kbuf_ == nullptr || layout.page_size <= 0;
}

PageCpuReader::~PageCpuReader() {
  if (kbuf_ != nullptr) kbuffer_free(kbuf_);
}

// Reads the pages from `offset` on, up to kBlockPages or the page holding the extent's end
// (read whole, like libtracecmd's mapping; zeros past the end of the file).
bool PageCpuReader::ReadBlock(uint64_t offset) {
  const uint64_t page_size = static_cast<uint64_t>(layout_.page_size);
  const uint64_t end = extent_.offset + extent_.size;
  uint64_t pages = std::min<uint64_t>(kBlockPages, (end - offset + page_size - 1) / page_size);
  size_t wanted = static_cast<size_t>(pages * page_size);
  size_t filled = 0;
  while (filled < wanted) {
    ssize_t n = pread(fd_, block_.data() + filled, wanted - filled,
                      static_cast<off_t>(offset + filled));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status_ = absl::DataLossError(
          absl::StrCat("reading CPU ", extent_.cpu, " data: ", std::strerror(errno)));
      return false;
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  std::fill(block_.begin() + static_cast<std::ptrdiff_t>(filled),
            block_.begin() + static_cast<std::ptrdiff_t>(wanted), 0);
  block_offset_ = offset;
  block_bytes_ = wanted;
  return true;
}

bool PageCpuReader::LoadPage(uint64_t offset) {
  if (block_bytes_ == 0 || offset < block_offset_ || offset >= block_offset_ + block_bytes_) {
    if (!ReadBlock(offset)) return false;
  }
  uint8_t* page = block_.data() + (offset - block_offset_);
  // kbuffer trusts the commit field and would read past the page: check it first.
  uint64_t commit = 0;
  const int header_bytes = 8 + layout_.header_long_size;
  for (int i = 0; i < layout_.header_long_size; ++i) {
    int shift = layout_.big_endian ? (layout_.header_long_size - 1 - i) * 8 : i * 8;
    commit |= static_cast<uint64_t>(page[8 + i]) << shift;
  }
  uint64_t data_bytes = commit & ((uint64_t{1} << 27) - 1);  // flag bits sit above
  if (data_bytes > static_cast<uint64_t>(layout_.page_size - header_bytes)) {
    status_ = absl::DataLossError(absl::StrCat(
        "CPU ", extent_.cpu, ": the page at byte ", offset, " claims ", data_bytes,
        " bytes of data, more than a ", layout_.page_size, "-byte page holds (corrupt page)"));
    return false;
  }
  return kbuffer_load_subbuffer(kbuf_, page) >= 0;
}

bool PageCpuReader::Next(RawRecord* record) {
  const uint64_t end = extent_.offset + extent_.size;
  while (!done_) {
    if (!loaded_) {
      loaded_ = LoadPage(page_offset_);
      if (!loaded_) break;
    }
    unsigned long long ts = 0;
    void* data = kbuffer_read_event(kbuf_, &ts);
    if (data == nullptr) {
      // The next page, as long as more than one page is left (libtracecmd's rule).
      if (end - page_offset_ <= static_cast<uint64_t>(layout_.page_size)) break;
      page_offset_ += static_cast<uint64_t>(layout_.page_size);
      loaded_ = false;
      continue;
    }
    record->data = data;
    record->size = kbuffer_event_size(kbuf_);
    record->ts_ns = ts;
    record->offset = page_offset_ + static_cast<uint64_t>(kbuffer_curr_offset(kbuf_));
    record->missed_events = kbuffer_missed_events(kbuf_);
    kbuffer_next_event(kbuf_, nullptr);
    return true;
  }
  done_ = true;
  return false;
}

}  // namespace napiscope::internal
