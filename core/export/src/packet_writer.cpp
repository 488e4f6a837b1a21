#include "packet_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

void PacketWriter::Flush() {
  std::string_view bytes = buffer_.bytes();
  // After a failed write nothing more is written: Close reports the error.
  while (fd_ >= 0 && error_ == 0 && !bytes.empty()) {
    ssize_t n = write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  written_ += static_cast<int64_t>(buffer_.size());
  buffer_.Clear();
}

absl::Status PacketWriter::Close() {
  if (fd_ < 0) return absl::OkStatus();
  Flush();
  if (path_ != "-" && close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ != 0) return absl::InternalError(path_ + ": cannot write: " + std::strerror(error_));
  return absl::OkStatus();
}

}  // namespace napiscope::perfetto_export
