#include "load/whole_file_decompress.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <absl/cleanup/cleanup.h>
#include <absl/strings/str_cat.h>

#include "napiscope/unnamed_file.h"

namespace napiscope::internal {

DecompressedFile::~DecompressedFile() {
  if (fd_ >= 0) close(fd_);
}

std::string DecompressedFile::path() const { return DescriptorPath(fd_); }

absl::Status DecompressedFile::Open(const std::string& path, TextCompression compression,
                                    const LoadOptions& options, double share) {
  std::string name(CompressionName(compression));
  int in = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return absl::PermissionDeniedError(std::strerror(errno));
  absl::Cleanup close_in = [in] { close(in); };
  struct stat st;
  double size = fstat(in, &st) == 0 && st.st_size > 0 ? static_cast<double>(st.st_size) : 1.0;
  std::string dir;
  auto cannot_write = [&](int error) {
    return absl::ResourceExhaustedError(absl::StrCat("a trace.dat compressed with ", name,
                                                     ": cannot decompress it into ", dir, ": ",
                                                     std::strerror(error)));
  };
  fd_ = OpenUnnamedTemporaryFile(&dir);
  if (fd_ < 0) return cannot_write(errno);
  DecompressingInput input(in, compression, 1 << 20);
  std::vector<char> out(4 << 20);
  absl::Status status;
  while (status.ok()) {
    if (options.cancel != nullptr && options.cancel->load()) {
      status = absl::CancelledError("cancelled");
      break;
    }
    size_t produced = input.Read(out.data(), out.size());
    if (options.progress) options.progress(share * static_cast<double>(input.bytes_read()) / size);
    if (produced == 0) break;
    if (int error = WriteAll(fd_, out.data(), produced); error != 0) status = cannot_write(error);
  }
  if (status.ok()) status = input.status();
  if (status.ok() && !input.clean_end()) {
    status = absl::DataLossError(absl::StrCat("the ", name,
                                              " stream ends early (a cut-off copy?): "
                                              "the trace.dat in it is incomplete"));
  }
  if (!status.ok()) {
    close(fd_);
    fd_ = -1;
  }
  return status;
}

}  // namespace napiscope::internal
