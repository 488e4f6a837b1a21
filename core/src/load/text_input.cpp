#include "load/text_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <absl/strings/str_cat.h>

namespace napiscope::internal {
namespace {

// A longer "line" means the file is not text; refuse it instead of growing without bound.
constexpr size_t kMaxLineBytes = 64 << 20;

}  // namespace

DecompressingInput::DecompressingInput(int fd, TextCompression compression, size_t chunk_bytes)
    : fd_(fd), decompressor_(MakeDecompressor(compression)), raw_(chunk_bytes) {}

size_t DecompressingInput::Read(char* out, size_t space) {
  while (!ended_) {
    if (pending_.empty() && !input_done_) {
      ssize_t n = read(fd_, raw_.data(), raw_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) status_ = absl::DataLossError(std::strerror(errno));
      if (n <= 0) {
        input_done_ = true;
      } else {
        bytes_read_ += static_cast<uint64_t>(n);
        pending_ = std::string_view(raw_.data(), static_cast<size_t>(n));
      }
    }
    size_t produced = 0;
    size_t pending_before = pending_.size();
    absl::Status status =
        decompressor_->Run(&pending_, input_done_, out, space, &produced, &clean_end_);
    if (!status.ok()) {
      status_ = std::move(status);
      decode_failed_ = true;
      ended_ = true;
      return produced;  // decoded before the error, still good
    }
    if (produced > 0) return produced;
    // Input the decompressor does not take: stop instead of spinning.
    stalled_ = !pending_.empty() && pending_.size() == pending_before;
    ended_ = stalled_ || (input_done_ && pending_.empty());
  }
  return 0;
}

TextLineReader::~TextLineReader() {
  if (fd_ >= 0) close(fd_);
}

absl::Status TextLineReader::Open(const std::string& path, size_t chunk_bytes) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return absl::NotFoundError(std::strerror(errno));
  struct stat st;
  if (fstat(fd_, &st) != 0) return absl::InternalError(std::strerror(errno));
  file_size_ = static_cast<uint64_t>(st.st_size);
  char magic[6] = {};
  ssize_t n = pread(fd_, magic, sizeof(magic), 0);
  if (n < 0) return absl::DataLossError(std::strerror(errno));
  compression_ = CompressionOf(std::string_view(magic, static_cast<size_t>(n)));
  buffer_.resize(chunk_bytes);
  if (compression_ != TextCompression::kNone) {
    input_ = std::make_unique<DecompressingInput>(fd_, compression_, chunk_bytes);
  }
  return absl::OkStatus();
}

absl::Status TextLineReader::SkipTo(uint64_t offset) {
  if (offset < offset_) return absl::InternalError("text reader cannot go back");
  if (!input_ && offset > offset_ + (end_ - begin_)) {
    if (lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
      return absl::DataLossError(std::strerror(errno));
    }
    file_read_ = offset;
    begin_ = end_ = 0;
    offset_ = offset;
    return absl::OkStatus();
  }
  while (offset_ + (end_ - begin_) < offset) {
    offset_ += end_ - begin_;
    begin_ = end_ = 0;
    if (!Refill()) return status_.ok() ? absl::DataLossError("text ends early") : status_;
  }
  begin_ += static_cast<size_t>(offset - offset_);
  offset_ = offset;
  return absl::OkStatus();
}

double TextLineReader::FractionRead() const {
  return file_size_ == 0 ? 1.0 : static_cast<double>(file_read_) / static_cast<double>(file_size_);
}

// Appends more plain text after end_; false when nothing more will come.
bool TextLineReader::Refill() {
  if (stream_done_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    if (buffer_.size() >= kMaxLineBytes) {
      status_ = absl::DataLossError(
          absl::StrCat("a line is longer than ", kMaxLineBytes >> 20, " MiB: not a text trace"));
      stream_done_ = true;
      return false;
    }
    buffer_.resize(buffer_.size() * 2);
  }
  for (;;) {
    char* out = buffer_.data() + end_;
    size_t space = buffer_.size() - end_;
    if (!input_) {
      ssize_t n = read(fd_, out, space);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) status_ = absl::DataLossError(std::strerror(errno));
      if (n <= 0) {
        stream_done_ = true;
        return false;
      }
      file_read_ += static_cast<uint64_t>(n);
      end_ += static_cast<size_t>(n);
      return true;
    }
    size_t produced = input_->Read(out, space);
    file_read_ = input_->bytes_read();
    end_ += produced;
    if (produced > 0) return true;
    stream_done_ = true;
    if (input_->decode_failed()) {
      status_ = absl::DataLossError(
          absl::StrCat(input_->status().message(), " after ", file_read_, " compressed bytes"));
      return false;
    }
    if (!input_->status().ok()) status_ = input_->status();
    if (input_->stalled() && !input_->clean_end()) {
      status_ = absl::DataLossError(
          absl::StrCat("undecodable data after ", file_read_, " compressed bytes"));
    }
    truncated_ = !input_->stalled() && !input_->clean_end();
    return false;
  }
}

bool TextLineReader::NextLine(std::string_view* line) {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* newline = std::memchr(start, '\n', end_ - begin_);
    if (newline != nullptr) {
      size_t length = static_cast<const char*>(newline) - start;
      begin_ += length + 1;
      offset_ += length + 1;
      if (length > 0 && start[length - 1] == '\r') --length;
      *line = std::string_view(start, length);
      return true;
    }
    if (!Refill()) {
      if (begin_ == end_) return false;
      // The last line has no newline.
      *line = std::string_view(buffer_.data() + begin_, end_ - begin_);
      if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
      offset_ += end_ - begin_;
      begin_ = end_;
      return true;
    }
  }
}

}  // namespace napiscope::internal
