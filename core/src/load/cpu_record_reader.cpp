#include "load/cpu_record_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <absl/strings/str_cat.h>
#include <zstd.h>
#include "load/tracecmd_cxx.h"
#include "load/zstd_claim.h"

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
    : fd_(fd), layout_(layout), extent_(extent), page_offset_(layout.zstd ? 0 : extent.offset) {
  // Buffers are allocated on the first read: a CPU without data costs no memory, however
  // many of them a header claims.
  done_ = extent.size == 0 || layout.page_size <= 0;
}

uint64_t PageCpuReader::BlockBytes(int page_size) {
  const uint64_t page = static_cast<uint64_t>(page_size);
  return std::max<uint64_t>(1, kBlockBytes / page) * page;
}

bool PageCpuReader::Allocate() {
  allocated_ = true;
  if (layout_.zstd) {
    zstd_ = ZSTD_createDCtx();
    if (zstd_ == nullptr) return Fail("out of memory");
    return true;
  }
  // Never more than the extent holds (rounded up to whole pages), so a page size or CPU
  // count the data does not back costs no memory.
  const uint64_t page = static_cast<uint64_t>(layout_.page_size);
  uint64_t extent_pages = extent_.size / page + (extent_.size % page != 0 ? 1 : 0);
  block_.resize(static_cast<size_t>(std::min(BlockBytes(layout_.page_size), extent_pages * page)));
  return true;
}

PageCpuReader::~PageCpuReader() { ZSTD_freeDCtx(zstd_); }

bool PageCpuReader::Fail(const std::string& what) {
  status_ = absl::DataLossError(absl::StrCat("CPU ", extent_.cpu, ": ", what));
  return false;
}

// Reads up to `length` bytes at `offset`; `got` is short only at the end of the file.
bool PageCpuReader::ReadFile(uint64_t offset, size_t length, uint8_t* into, size_t* got) {
  size_t filled = 0;
  while (filled < length) {
    ssize_t n = pread(fd_, into + filled, length - filled, static_cast<off_t>(offset + filled));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(absl::StrCat("reading data: ", std::strerror(errno)));
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  *got = filled;
  return true;
}

// The end of the CPU's data, in the offsets of page_offset_; for compressed data only known
// once the last chunk is read (before that, more pages follow the chunk in hand).
uint64_t PageCpuReader::DataEnd() const {
  if (!layout_.zstd) return extent_.offset + extent_.size;
  return chunks_left_ == 0 ? block_offset_ + block_bytes_ : UINT64_MAX;
}

// Reads the pages from `offset` on, up to a block (BlockBytes) or the page holding the extent's end
// (read whole, like libtracecmd's mapping; zeros past the end of the file).
bool PageCpuReader::ReadBlock(uint64_t offset) {
  if (layout_.zstd) return ReadChunk(offset);
  const uint64_t page_size = static_cast<uint64_t>(layout_.page_size);
  const uint64_t end = extent_.offset + extent_.size;
  uint64_t pages =
      std::min<uint64_t>(block_.size() / page_size, (end - offset + page_size - 1) / page_size);
  size_t wanted = static_cast<size_t>(pages * page_size);
  size_t filled = 0;
  if (!ReadFile(offset, wanted, block_.data(), &filled)) return false;
  std::fill(block_.begin() + static_cast<std::ptrdiff_t>(filled),
            block_.begin() + static_cast<std::ptrdiff_t>(wanted), 0);
  block_offset_ = offset;
  block_bytes_ = wanted;
  return true;
}

// Decompresses the chunk that starts at uncompressed `offset`: the next one in the file.
bool PageCpuReader::ReadChunk(uint64_t offset) {
  const uint64_t max_chunk_bytes = MaxChunkBytes(layout_.page_size);
  // The chunks fill the extent exactly (its size counts them, not the chunk count before
  // them); the header checked the extent fits in the file.
  const uint64_t end = std::min(layout_.file_size, extent_.offset + 4 + extent_.size);
  uint8_t head[8];
  size_t got = 0;
  if (chunks_left_ < 0) {
    if (!ReadFile(extent_.offset, 4, head, &got)) return false;
    if (got < 4) return Fail("compressed data shorter than its chunk count");
    chunks_left_ = static_cast<int64_t>(ReadFileInt(head, 4, layout_.big_endian));
    next_chunk_ = extent_.offset + 4;
  }
  if (chunks_left_ == 0 && block_bytes_ == 0) return false;  // a CPU without data
  if (chunks_left_ == 0 || offset != block_offset_ + block_bytes_) {
    return Fail(absl::StrCat("compressed data ends before the page at uncompressed byte ", offset));
  }
  if (next_chunk_ > end || end - next_chunk_ < 8) {
    return Fail(absl::StrCat("compressed chunk header at byte ", next_chunk_,
                             " is past the end of the CPU's data (corrupt chunk count)"));
  }
  if (!ReadFile(next_chunk_, 8, head, &got)) return false;
  auto compressed_bytes = static_cast<uint32_t>(ReadFileInt(head, 4, layout_.big_endian));
  auto bytes = static_cast<uint32_t>(ReadFileInt(head + 4, 4, layout_.big_endian));
  if (bytes == 0 || bytes > max_chunk_bytes) {
    return Fail(absl::StrCat("compressed chunk at byte ", next_chunk_, " claims ", bytes,
                             " uncompressed bytes (corrupt chunk)"));
  }
  if (compressed_bytes > end - next_chunk_ - 8) {
    return Fail(absl::StrCat("compressed chunk at byte ", next_chunk_, " claims ", compressed_bytes,
                             " bytes, past the end of the CPU's data (corrupt chunk)"));
  }
  compressed_.resize(compressed_bytes);
  if (!ReadFile(next_chunk_ + 8, compressed_bytes, compressed_.data(), &got)) return false;
  std::string problem = ZstdClaimProblem(compressed_.data(), got, bytes);
  if (!problem.empty()) {
    return Fail(absl::StrCat("compressed chunk at byte ", next_chunk_, " claims ", bytes,
                             " uncompressed bytes, but ", problem, " (corrupt chunk)"));
  }
  block_.resize(bytes);
  size_t out = ZSTD_decompressDCtx(zstd_, block_.data(), bytes, compressed_.data(), got);
  if (ZSTD_isError(out) || out != bytes) {
    return Fail(absl::StrCat("compressed chunk at byte ", next_chunk_,
                             " does not decompress (corrupt chunk)"));
  }
  chunk_file_offset_ = next_chunk_;
  next_chunk_ += 8 + compressed_bytes;
  --chunks_left_;
  ++chunks_read_;
  block_offset_ = offset;
  block_bytes_ = bytes;
  return true;
}

// At the end of compressed data the chunks read must fill the extent: a chunk count smaller
// than the chunks written (0 in the worst case) would silently drop the rest.
void PageCpuReader::CheckAllChunksRead() {
  if (!layout_.zstd || !status_.ok()) return;
  const uint64_t end = extent_.offset + 4 + extent_.size;
  if (next_chunk_ != end) {
    Fail(absl::StrCat("its chunk count (", chunks_read_, " read) leaves bytes ", next_chunk_,
                      " to ", end, " of its compressed data unread (corrupt chunk count)"));
  }
}

bool PageCpuReader::LoadPage(uint64_t offset) {
  if (block_bytes_ == 0 || offset < block_offset_ || offset >= block_offset_ + block_bytes_) {
    if (!ReadBlock(offset)) return false;
  }
  const uint64_t page_size = static_cast<uint64_t>(layout_.page_size);
  if (offset - block_offset_ + page_size > block_bytes_) {
    return Fail(absl::StrCat("compressed chunk at byte ", chunk_file_offset_,
                             " ends inside a page (corrupt chunk)"));
  }
  uint8_t* page = block_.data() + (offset - block_offset_);
  // The walk reads up to the commit field's size (kbuffer would trust it and read past the
  // page): check it first.
  uint64_t data_bytes = PageDataBytes(page, layout_.header_long_size, layout_.big_endian);
  if (data_bytes > page_size - 8 - layout_.header_long_size) {
    return Fail(absl::StrCat("the page at byte ", layout_.zstd ? chunk_file_offset_ : offset,
                             layout_.zstd ? " (compressed chunk)" : "", " claims ", data_bytes,
                             " bytes of data, more than a ", layout_.page_size,
                             "-byte page holds (corrupt page)"));
  }
  BadRecord bad;
  next_record_ = 0;
  if (WalkRingBufferPage(page, layout_.page_size, layout_.header_long_size, layout_.big_endian,
                         &page_records_, &bad)) {
    return true;
  }
  // kbuffer (and libtracecmd) would follow such a length: back to an earlier record forever,
  // or past the page.
  return Fail(absl::StrCat("the page at byte ", layout_.zstd ? chunk_file_offset_ : offset,
                           layout_.zstd ? " (compressed chunk)" : "", " has a record (page byte ",
                           bad.page_offset, ") whose length ",
                           bad.runs_past ? "runs past the page's data" : "points backwards",
                           " (corrupt page)"));
}

bool PageCpuReader::Next(RawRecord* record) {
  if (!done_ && !allocated_ && !Allocate()) done_ = true;
  while (!done_) {
    if (!loaded_) {
      loaded_ = LoadPage(page_offset_);
      if (!loaded_) {
        CheckAllChunksRead();  // a chunk count of 0 reads nothing
        break;
      }
    }
    if (NextOfPage(record)) {
      if (!layout_.time.identity()) record->ts_ns = ConvertTimestamp(layout_.time, record->ts_ns);
      if (layout_.zstd) record->offset = chunk_file_offset_;
      return true;
    }
    // The next page, as long as more than one page is left (libtracecmd's rule).
    if (DataEnd() - page_offset_ <= static_cast<uint64_t>(layout_.page_size)) {
      CheckAllChunksRead();
      break;
    }
    page_offset_ += static_cast<uint64_t>(layout_.page_size);
    loaded_ = false;
  }
  done_ = true;
  return false;
}

// The next record of the page in hand, raw; false at the page's end.
bool PageCpuReader::NextOfPage(RawRecord* record) {
  if (next_record_ == page_records_.size()) return false;
  const PageRecord& walked = page_records_[next_record_++];
  record->data = block_.data() + (page_offset_ - block_offset_) + walked.data_offset;
  record->size = walked.size;
  record->ts_ns = walked.ts;
  record->offset = page_offset_ + walked.header_offset;
  record->missed_events = walked.missed_events;
  return true;
}

}  // namespace napiscope::internal
