#include "load/whole_file_decompress.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

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
  struct stat st;
  double size = fstat(in, &st) == 0 && st.st_size > 0 ? static_cast<double>(st.st_size) : 1.0;
  std::string dir;
  fd_ = OpenUnnamedTemporaryFile(&dir);
  if (fd_ < 0) {
    int error = errno;
    close(in);
    return absl::ResourceExhaustedError(absl::StrCat("a trace.dat compressed with ", name,
                                                     ": cannot decompress it into ", dir, ": ",
                                                     std::strerror(error)));
  }
  std::unique_ptr<Decompressor> decompressor = MakeDecompressor(compression);
  std::vector<char> raw(1 << 20), out(4 << 20);
  std::string_view pending;
  bool input_done = false, clean_end = false;
  uint64_t read_bytes = 0;
  absl::Status status;
  while (status.ok()) {
    if (options.cancel != nullptr && options.cancel->load()) {
      status = absl::CancelledError("cancelled");
      break;
    }
    if (pending.empty() && !input_done) {
      ssize_t got = read(in, raw.data(), raw.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        status = absl::DataLossError(std::strerror(errno));
        break;
      }
      input_done = got == 0;
      pending = std::string_view(raw.data(), static_cast<size_t>(got));
      read_bytes += static_cast<uint64_t>(got);
      if (options.progress) options.progress(share * static_cast<double>(read_bytes) / size);
    }
    size_t produced = 0;
    size_t before = pending.size();
    status = decompressor->Run(&pending, input_done, out.data(), out.size(), &produced, &clean_end);
    if (!status.ok()) break;
    if (int error = WriteAll(fd_, out.data(), produced); error != 0) {
      status = absl::ResourceExhaustedError(absl::StrCat("a trace.dat compressed with ", name,
                                                         ": cannot decompress it into ", dir, ": ",
                                                         std::strerror(error)));
      break;
    }
    // No progress with input at hand: the stream ended (what follows it is not read) or the
    // input did.
    bool progressed = produced > 0 || pending.size() != before;
    if (!progressed && (input_done || !pending.empty())) break;
  }
  close(in);
  if (status.ok() && !clean_end) {
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
