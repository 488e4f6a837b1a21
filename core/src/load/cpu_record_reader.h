// Reading the raw records of one CPU of a trace.dat file, in file order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <absl/status/status.h>

#include "load/ring_buffer_page.h"
#include "load/tracedat_header.h"

struct tracecmd_input;
struct tep_record;
struct ZSTD_DCtx_s;

namespace napiscope::internal {

/// One ring-buffer record; `data` stays valid until the next call to Next().
struct RawRecord {
  const void* data = nullptr;
  int size = 0;
  uint64_t ts_ns = 0;
  int64_t missed_events = 0;  ///< events lost before this record, -1 when not counted
  uint64_t offset = 0;        ///< file offset of the record, for progress
};

/// The records of one CPU, in file order.
class CpuRecordReader {
 public:
  virtual ~CpuRecordReader() = default;
  /// Reads the next record; false at the end of the CPU's data or on error (see status()).
  virtual bool Next(RawRecord* record) = 0;
  /// OK unless reading failed.
  virtual absl::Status status() const { return absl::OkStatus(); }
};

/// Reads a CPU through a shared libtracecmd handle (works for every file, but the handle
/// may only be used by one thread).
class TracecmdCpuReader : public CpuRecordReader {
 public:
  TracecmdCpuReader(tracecmd_input* handle, int cpu) : handle_(handle), cpu_(cpu) {}
  ~TracecmdCpuReader() override;
  bool Next(RawRecord* record) override;

 private:
  tracecmd_input* handle_;
  int cpu_;
  bool started_ = false;
  tep_record* current_ = nullptr;
};

/// How the pages of a file are laid out, for PageCpuReader.
struct PageLayout {
  int page_size = 0;
  bool big_endian = false;
  int header_long_size = 8;  ///< size of the page header's commit field
  bool zstd = false;         ///< CPU data is in zstd chunks (trace.dat v7 compression)
  uint64_t file_size = 0;    ///< zstd: no chunk may pass it (nor its CPU's extent)
  TimestampConversion time;  ///< DATE, OFFSET and TSC2NSEC options, applied to every record
};

/// Reads a CPU extent page by page with pread, the way libtracecmd does, but without its
/// per-record allocations, each page walked by WalkRingBufferPage (kbuffer's rules); several
/// instances may run in parallel threads. Compressed data (v7: a
/// chunk count, then chunks of whole pages, each a compressed size, an uncompressed size and zstd
/// bytes) is decompressed a chunk at a time. Timestamps are converted as trace-cmd converts them
/// (layout.time).
class PageCpuReader : public CpuRecordReader {
 public:
  /// `fd` must stay open while the reader is used; it is only read with pread.
  PageCpuReader(int fd, const PageLayout& layout, const CpuDataExtent& extent);
  ~PageCpuReader() override;
  bool Next(RawRecord* record) override;
  absl::Status status() const override { return status_; }

 private:
  bool Allocate();
  void CheckAllChunksRead();
  bool LoadPage(uint64_t offset);
  bool NextOfPage(RawRecord* record);
  bool ReadBlock(uint64_t offset);
  bool ReadChunk(uint64_t offset);
  bool ReadFile(uint64_t offset, size_t length, uint8_t* into, size_t* got);
  uint64_t DataEnd() const;
  bool Fail(const std::string& what);

  /// Bytes of pages read per pread (at least one page, at most what the extent holds): the
  /// most memory an uncompressed CPU's reader takes besides one page.
  static constexpr uint64_t kBlockBytes = 256 << 10;
  /// Bytes of one read block for pages of `page_size` bytes.
  static uint64_t BlockBytes(int page_size);

  int fd_;
  PageLayout layout_;
  CpuDataExtent extent_;
  // The records of the page in hand, as WalkRingBufferPage read them, and the next to return.
  std::vector<PageRecord> page_records_;
  size_t next_record_ = 0;
  std::vector<uint8_t> block_;  // a block of pages, or one decompressed chunk
  uint64_t block_offset_ = 0;   // of block_ in the CPU's (uncompressed) data
  uint64_t block_bytes_ = 0;    // 0: nothing read yet
  // Compressed data: where the next chunk header is, how many are left, the file offset of
  // the chunk in block_ (for progress), the compressed bytes and the decompression context.
  uint64_t next_chunk_ = 0;
  int64_t chunks_left_ = -1;  // -1: the chunk count is not read yet
  int64_t chunks_read_ = 0;
  uint64_t chunk_file_offset_ = 0;
  std::vector<uint8_t> compressed_;
  ZSTD_DCtx_s* zstd_ = nullptr;
  uint64_t page_offset_ = 0;
  bool allocated_ = false;
  bool loaded_ = false;
  bool done_ = false;
  absl::Status status_;
};

}  // namespace napiscope::internal
