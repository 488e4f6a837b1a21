#include "napiscope/unnamed_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace napiscope {

int OpenUnnamedTemporaryFile(std::string* dir) {
  const char* tmpdir = std::getenv("TMPDIR");
  *dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  int fd = open(dir->c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string pattern = *dir + "/.napiscope-input-XXXXXX";  // file systems without O_TMPFILE
  fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) unlink(pattern.c_str());
  return fd;
}

std::string DescriptorPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

}  // namespace napiscope
