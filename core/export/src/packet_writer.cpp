#include "packet_writer.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace napiscope::perfetto_export {

PacketWriter::~PacketWriter() {
  if (fd_ >= 0) (void)Close();
}

absl::Status PacketWriter::Open(const std::string& path) {
  path_ = path;
  fd_ = path == "-" ? STDOUT_FILENO : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd_ < 0) {
    return absl::InvalidArgumentError(path + ": cannot write: " + std::strerror(errno));
  }
  return absl::OkStatus();
}

void PacketWriter::Write(std::span<const std::string_view> pieces) {
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

absl::Status PacketWriter::Close() {
  if (fd_ < 0) return absl::OkStatus();
  if (path_ != "-" && close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ != 0) return absl::InternalError(path_ + ": cannot write: " + std::strerror(error_));
  return absl::OkStatus();
}

}  // namespace napiscope::perfetto_export
