#include "record/owner_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>

namespace napiscope::internal {
namespace {

// Root's: tmpfs, emptied at boot as tracefs instances are.
constexpr char kLockDir[] = "/run/napiscope";

// The lock directory, made when missing; false when there is none to use.
bool MakeLockDir() {
  if (mkdir(kLockDir, 0700) != 0 && errno != EEXIST) return false;
  struct stat info {};
  return lstat(kLockDir, &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == geteuid();
}

// Opens (creating it when `create`) and locks `path` without waiting; -1 when a process holds
// it or it is gone. A file removed by its releaser between our open and our lock is opened
// again.
int LockFile(const std::string& path, bool create, int64_t* holder) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    int fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char text[32] = {};
      ssize_t n = pread(fd, text, sizeof text - 1, 0);
      int64_t pid = 0;
      if (n > 0 && absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::string_view(text, static_cast<size_t>(n))), &pid)) {
        *holder = pid;
      }
      close(fd);
      return -1;
    }
    struct stat opened {}, named {};
    if (fstat(fd, &opened) == 0 && stat(path.c_str(), &named) == 0 &&
        opened.st_ino == named.st_ino && opened.st_dev == named.st_dev) {
      return fd;
    }
    close(fd);
  }
  return -1;
}

}  // namespace

OwnerLock::Outcome OwnerLock::Take(const std::string& name, int64_t* holder) {
  Release();
  *holder = 0;
  if (!MakeLockDir()) return Outcome::kUnavailable;
  std::string path = absl::StrCat(kLockDir, "/", name);
  int fd = LockFile(path, /*create=*/true, holder);
  if (fd < 0) return Outcome::kHeld;
  std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the pid; a message then names no process.
  }
  fd_ = fd;
  path_ = path;
  return Outcome::kTaken;
}

void OwnerLock::Release() {
  if (fd_ < 0) return;
  unlink(path_.c_str());  // while locked: a process that opened it first opens it again
  close(fd_);
  fd_ = -1;
  path_.clear();
}

void ForEachAbandonedLock(const std::string& prefix,
                          const std::function<void(const std::string&)>& abandoned) {
  DIR* dir = opendir(kLockDir);
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) {
      names.push_back(name);
    }
  }
  closedir(dir);
  for (const std::string& name : names) {
    std::string path = absl::StrCat(kLockDir, "/", name);
    int64_t holder = 0;
    int fd = LockFile(path, /*create=*/false, &holder);
    if (fd < 0) continue;  // its process lives
    abandoned(name.substr(prefix.size()));
    unlink(path.c_str());
    close(fd);
  }
}

std::string OutputLockName(const std::string& prefix, const std::string& path) {
  // The directory resolved (the file may not exist yet), the name as given.
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty()) dir = "/";
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::unique_ptr<char, decltype(&std::free)> real(realpath(dir.c_str(), nullptr), std::free);
  std::string absolute = absl::StrCat(real != nullptr ? real.get() : dir.c_str(), "/", base);
  return absl::StrCat(prefix, absl::Hex(std::hash<std::string>{}(absolute), absl::kZeroPad16));
}

}  // namespace napiscope::internal
