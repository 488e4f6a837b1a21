// What the readers of a trace.dat header share: a bounds-checked byte reader, the file read at
// explicit offsets, the errors they return and the limits they hold a file to.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include "load/tracedat_header.h"

namespace napiscope::internal {

/// Most bytes of one v7 section or v6 block napiscope reads: options are small; refuse absurd
/// sizes.
constexpr uint64_t kMaxSectionBytes = 256ull << 20;

/// Most bytes of the header_page format text (the kernel's is about 200).
constexpr uint64_t kMaxHeaderPageText = 64 << 10;

/// "flyrecord" and its NUL: the label before each buffer's CPU table.
constexpr uint64_t kFlyrecordLabelBytes = 10;

/// A bounds-checked reader over a byte range, in the file's endianness: a read past the end
/// returns false and reads nothing.
class ByteReader {
 public:
  /// Reads the `size` bytes at `data`, which must outlive the reader.
  ByteReader(const uint8_t* data, size_t size, bool big_endian)
      : data_(data), size_(size), big_endian_(big_endian) {}

  bool ReadU16(uint16_t* v) { return ReadInt(2, v); }  ///< the next 2 bytes as an integer
  bool ReadU32(uint32_t* v) { return ReadInt(4, v); }  ///< the next 4 bytes as an integer
  bool ReadU64(uint64_t* v) { return ReadInt(8, v); }  ///< the next 8 bytes as an integer

  /// The NUL-terminated string here (the NUL read, not kept); false when no NUL follows.
  bool ReadString(std::string* out) {
    const void* nul = std::memchr(data_ + pos_, 0, size_ - pos_);
    if (nul == nullptr) return false;
    size_t len = static_cast<const uint8_t*>(nul) - (data_ + pos_);
    out->assign(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len + 1;
    return true;
  }

  /// Moves `n` bytes on.
  bool Skip(uint64_t n) {
    if (n > size_ - pos_) return false;
    pos_ += n;
    return true;
  }

  const uint8_t* here() const { return data_ + pos_; }  ///< the next byte to read
  size_t remaining() const { return size_ - pos_; }     ///< bytes left to read

 private:
  template <typename T>
  bool ReadInt(int bytes, T* v) {
    if (static_cast<size_t>(bytes) > size_ - pos_) return false;
    *v = static_cast<T>(ReadFileInt(data_ + pos_, bytes, big_endian_));
    pos_ += bytes;
    return true;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool big_endian_;
};

/// The file, read with pread at explicit offsets; owns (closes) its descriptor.
class FileView {
 public:
  /// Takes `fd`, open on a file of `size` bytes.
  explicit FileView(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileView() { close(fd_); }
  FileView(const FileView&) = delete;
  FileView& operator=(const FileView&) = delete;

  uint64_t size() const { return size_; }  ///< the file's bytes
  int fd() const { return fd_; }           ///< the descriptor, still owned by the view

  /// The `length` bytes at `offset` into `out`; false when they pass the end or do not read.
  bool Read(uint64_t offset, uint64_t length, std::string* out) const {
    if (offset > size_ || length > size_ - offset) return false;
    out->resize(length);
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = pread(fd_, out->data() + done, length - done, offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += n;
    }
    return true;
  }

 private:
  int fd_;
  uint64_t size_;
};

/// "corrupt trace.dat header: `what`", a DataLoss error.
inline absl::Status CorruptHeaderError(const std::string& what) {
  return absl::DataLossError(absl::StrCat("corrupt trace.dat header: ", what));
}

/// "truncated trace.dat: `what`", a DataLoss error.
inline absl::Status TruncatedFileError(const std::string& what) {
  return absl::DataLossError(absl::StrCat("truncated trace.dat: ", what));
}

}  // namespace napiscope::internal
