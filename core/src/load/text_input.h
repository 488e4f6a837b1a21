// Reads a text file line by line, plain or gzip / zstd / xz compressed, in large chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>

namespace napiscope::internal {

/// Compression of a file, told by its first bytes.
enum class TextCompression : uint8_t { kNone, kGzip, kZstd, kXz };

/// The compression whose magic `head` starts with (kNone when none matches).
TextCompression CompressionOf(std::string_view head);

/// The name of a compression or archive format napiscope does not read ("bzip2", "zip") whose
/// magic `head` starts with, "" when none.
std::string_view UnreadPackingOf(std::string_view head);

/// Name for people: "", "gzip", "zstd", "xz".
std::string_view CompressionName(TextCompression compression);

/// Decompresses as much of `head` (the start of a compressed file) as it can, up to
/// `max_bytes` of output; plain input is returned as is.
std::string DecompressPrefix(std::string_view head, size_t max_bytes);

/// Turns compressed bytes into plain bytes, chunk by chunk.
class Decompressor {
 public:
  virtual ~Decompressor() = default;
  /// Consumes input from `*in` (advancing it) and writes up to `out_size` bytes to `out`;
  /// `*produced` says how many. `input_done` says no input follows `*in`; `*clean_end` is set
  /// when the input ended exactly at the end of a complete stream (not truncated).
  virtual absl::Status Run(std::string_view* in, bool input_done, char* out, size_t out_size,
                           size_t* produced, bool* clean_end) = 0;
};

/// A decompressor for `compression` (nullptr for kNone).
std::unique_ptr<Decompressor> MakeDecompressor(TextCompression compression);

/// The plain bytes of a compressed file, decompressed as they are asked for: the reading of
/// the text reader and of a trace.dat compressed whole.
class DecompressingInput {
 public:
  /// Reads `fd` (not owned, at its current offset), compressed with `compression` (not kNone),
  /// `chunk_bytes` at a time.
  DecompressingInput(int fd, TextCompression compression, size_t chunk_bytes);

  /// Writes the next plain bytes to `out`, at most `space` of them, and returns how many; 0
  /// only at the end: the input ended (clean_end() says whether inside a stream), input is
  /// left that the decompressor does not take (stalled()), or reading or decompressing failed
  /// (status()). Bytes decoded before a failure are returned first.
  size_t Read(char* out, size_t space);

  /// OK, or the read or decompression error that ended the input.
  const absl::Status& status() const { return status_; }
  /// True when status() is the decompressor's (corrupt data), not a read's.
  bool decode_failed() const { return decode_failed_; }
  /// True when the input ended exactly at the end of a complete stream.
  bool clean_end() const { return clean_end_; }
  /// True when input was left that the decompressor does not take (bytes after an xz stream).
  bool stalled() const { return stalled_; }
  /// Compressed bytes read so far.
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  int fd_;
  std::unique_ptr<Decompressor> decompressor_;
  std::vector<char> raw_;     // compressed bytes read
  std::string_view pending_;  // the part of raw_ not yet decompressed
  bool input_done_ = false;   // the file has no more bytes
  bool ended_ = false;        // Read returns 0 from now on
  bool clean_end_ = false;
  bool stalled_ = false;
  bool decode_failed_ = false;
  uint64_t bytes_read_ = 0;
  absl::Status status_;
};

/// Yields the lines of a file; the views stay valid until the next call.
class TextLineReader {
 public:
  TextLineReader() = default;
  ~TextLineReader();
  TextLineReader(const TextLineReader&) = delete;
  TextLineReader& operator=(const TextLineReader&) = delete;

  /// Opens `path` and picks the decompressor from its first bytes; `chunk_bytes` is the size
  /// of its buffers (the longest line still grows them).
  absl::Status Open(const std::string& path, size_t chunk_bytes = 1 << 20);

  /// Moves to the plain-text byte `offset` (a line start found by an earlier reading): a seek
  /// for plain files, decompressing and dropping the text before it otherwise.
  absl::Status SkipTo(uint64_t offset);

  /// Plain-text byte offset of the next line.
  uint64_t offset() const { return offset_; }

  /// The next line without its newline; false at the end or on an error (see status()).
  bool NextLine(std::string_view* line);

  /// OK, or why reading stopped early.
  const absl::Status& status() const { return status_; }

  /// Fraction of the file's bytes read so far (0..1).
  double FractionRead() const;

  /// The file's compression.
  TextCompression compression() const { return compression_; }

  /// True when compressed input ended inside a stream (a cut-off .gz / .zst / .xz).
  bool truncated() const { return truncated_; }

 private:
  bool Refill();

  int fd_ = -1;
  uint64_t file_size_ = 0;
  uint64_t file_read_ = 0;
  bool stream_done_ = false;
  bool truncated_ = false;
  TextCompression compression_ = TextCompression::kNone;
  std::unique_ptr<DecompressingInput> input_;  // compressed files only
  std::vector<char> buffer_;      // plain text; lines are views into it
  size_t begin_ = 0;              // first byte not yet returned
  size_t end_ = 0;                // end of valid data
  uint64_t offset_ = 0;           // plain-text offset of buffer_[begin_]
  absl::Status status_;
};

}  // namespace napiscope::internal
