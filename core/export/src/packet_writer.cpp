#include "packet_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace napiscope::perfetto_export {

void PacketWriter::FreeAligned::operator()(char* p) const { std::free(p); }

PacketWriter::~PacketWriter() {
  if (fd_ >= 0) (void)Close();
}

absl::Status PacketWriter::Open(const std::string& path) {
  path_ = path;
  fd_ = path == "-" ? STDOUT_FILENO : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd_ < 0) {
    return absl::InvalidArgumentError(path + ": cannot write: " + std::strerror(errno));
  }
  struct stat st;
  regular_ = path != "-" && fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  if (regular_) {
    int flags = fcntl(fd_, F_GETFL);
    void* buffer = nullptr;
    if (flags >= 0 && fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0) {
      if (posix_memalign(&buffer, kDirectAlign, kDirectBytes) == 0) {
        direct_.reset(static_cast<char*>(buffer));
      } else {
        (void)fcntl(fd_, F_SETFL, flags);
      }
    }
  }
  return absl::OkStatus();
}

void PacketWriter::Write(std::span<const std::string_view> pieces) {
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!direct_) {
      WriteBuffered(pieces.subspan(i));
      return;
    }
    std::string_view piece = pieces[i];
    bytes_ += static_cast<int64_t>(piece.size());
    while (!piece.empty()) {
      if (!direct_) {  // direct I/O stopped within this piece: its rest goes out buffered
        bytes_ -= static_cast<int64_t>(piece.size());
        WriteBuffered(std::span<const std::string_view>(&piece, 1));
        break;
      }
      size_t n = std::min(piece.size(), kDirectBytes - direct_size_);
      std::memcpy(direct_.get() + direct_size_, piece.data(), n);
      direct_size_ += n;
      piece.remove_prefix(n);
      if (direct_size_ == kDirectBytes) WriteDirect(kDirectBytes);
    }
  }
}

void PacketWriter::WriteBuffered(std::span<const std::string_view> pieces) {
  std::vector<iovec> left;
  left.reserve(pieces.size());
  for (std::string_view piece : pieces) {
    bytes_ += static_cast<int64_t>(piece.size());
    if (!piece.empty()) left.push_back({const_cast<char*>(piece.data()), piece.size()});
  }
  size_t first = 0;  // the first piece not yet written whole
  while (fd_ >= 0 && error_ == 0 && first < left.size()) {
    int count = static_cast<int>(std::min<size_t>(left.size() - first, IOV_MAX));
    ssize_t n = writev(fd_, left.data() + first, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    auto done = static_cast<size_t>(n);
    while (first < left.size() && done >= left[first].iov_len) done -= left[first++].iov_len;
    if (done > 0) {  // a piece written in part: its rest goes next
      left[first].iov_base = static_cast<char*>(left[first].iov_base) + done;
      left[first].iov_len -= done;
    }
  }
}

void PacketWriter::WriteDirect(size_t bytes) {
  size_t done = 0;
  while (fd_ >= 0 && error_ == 0 && done < bytes) {
    ssize_t n = write(fd_, direct_.get() + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL && done == 0) {
      StopDirect();  // the file system wants other alignment, or no direct I/O at all
      return;
    }
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
    if (done % kDirectAlign != 0) {  // a short write off the alignment: finish it buffered
      std::memmove(direct_.get(), direct_.get() + done, direct_size_ - done);
      direct_size_ -= done;
      StopDirect();
      return;
    }
  }
  std::memmove(direct_.get(), direct_.get() + bytes, direct_size_ - bytes);
  direct_size_ -= bytes;
}

void PacketWriter::StopDirect() {
  int flags = fcntl(fd_, F_GETFL);
  if (flags < 0 || fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) {
    error_ = errno;
  }
  std::unique_ptr<char[], FreeAligned> held = std::move(direct_);
  size_t size = std::exchange(direct_size_, 0);
  std::string_view rest(held.get(), size);
  int64_t counted = bytes_;
  WriteBuffered(std::span<const std::string_view>(&rest, 1));
  bytes_ = counted;  // counted when handed to Write
}

void PacketWriter::Abandon() {
  (void)Close();
  if (regular_) unlink(path_.c_str());
  regular_ = false;
}

absl::Status PacketWriter::Close() {
  if (fd_ < 0) return absl::OkStatus();
  if (direct_) {
    WriteDirect(direct_size_ / kDirectAlign * kDirectAlign);
    if (direct_) StopDirect();  // the last partial block
  }
  if (path_ != "-" && close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ != 0) return absl::InternalError(path_ + ": cannot write: " + std::strerror(error_));
  return absl::OkStatus();
}

}  // namespace napiscope::perfetto_export
