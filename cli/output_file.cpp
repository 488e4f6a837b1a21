#include "output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <absl/strings/str_replace.h>

namespace napiscope::cli {
namespace {

// The signals that end a command: from outside, and crashes.
std::vector<int> EndingSignals() {
  std::vector<int> signals = TerminatingSignals();
  for (int crash : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) {
    signals.push_back(crash);
  }
  return signals;
}

// The temporary file a signal removes: set before it is armed, read by the handler only while
// armed (async-signal-safe: no allocation, no locks).
char signal_temp_path[PATH_MAX];
volatile std::sig_atomic_t signal_temp_armed = 0;

extern "C" void RemoveTempAndDie(int signal_number) {
  if (signal_temp_armed != 0) unlink(signal_temp_path);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// Removes the temporary file when the signals that end a command from outside come, unless
// the command handles them itself (record and live stop on them).
void InstallSignalCleanup() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int signal_number : EndingSignals()) {
    struct sigaction current {};
    if (sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) {
      continue;
    }
    struct sigaction action {};
    action.sa_handler = RemoveTempAndDie;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, nullptr);
  }
}

void ArmSignalCleanup(const std::string& temp) {
  signal_temp_armed = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (temp.size() >= sizeof signal_temp_path) return;
  std::memcpy(signal_temp_path, temp.c_str(), temp.size() + 1);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  signal_temp_armed = 1;
}

void DisarmSignalCleanup() {
  signal_temp_armed = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

// The permissions a new file gets from open(path, O_CREAT, 0666).
mode_t NewFileMode() {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

std::vector<int> TerminatingSignals() {
  std::vector<int> signals = {SIGHUP,    SIGINT,  SIGQUIT,   SIGPIPE, SIGALRM,
                              SIGTERM,   SIGUSR1, SIGUSR2,   SIGVTALRM, SIGPROF,
                              SIGXCPU,   SIGSTKFLT, SIGIO,   SIGPWR};
  for (int signal_number = SIGRTMIN; signal_number <= SIGRTMAX; ++signal_number) {
    signals.push_back(signal_number);
  }
  return signals;
}

OutputTarget ResolveOutputTarget(const std::string& path) {
  OutputTarget target{path, NewFileMode(), true};
  if (path.empty() || path == "-") return target;
  struct stat link {};
  if (lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // Replace the file the link names, not the link.
    std::unique_ptr<char, decltype(&std::free)> real(realpath(path.c_str(), nullptr), std::free);
    char named[PATH_MAX];
    ssize_t size = real != nullptr ? -1 : readlink(path.c_str(), named, sizeof named);
    if (real != nullptr) {
      target.destination = real.get();
    } else if (size > 0) {
      // A dangling link: the file it names is made.
      std::string name(named, static_cast<size_t>(size));
      size_t slash = path.rfind('/');
      target.destination = name.starts_with('/') || slash == std::string::npos
                               ? name
                               : path.substr(0, slash + 1) + name;
    }
  }
  struct stat existing {};
  if (stat(target.destination.c_str(), &existing) == 0) {
    target.regular = S_ISREG(existing.st_mode);
    if (target.regular) target.mode = existing.st_mode & 07777;
  }
  return target;
}

OutputFile::~OutputFile() { Discard(); }

absl::Status OutputFile::Open(const std::string& path) {
  Discard();
  path_ = path;
  destination_ = path;
  if (path.empty() || path == "-") return absl::OkStatus();
  OutputTarget target = ResolveOutputTarget(path);
  destination_ = target.destination;
  if (!target.regular) return absl::OkStatus();  // a device, pipe or directory
  mode_t mode = target.mode;
  size_t slash = destination_.rfind('/');
  std::string dir = slash == std::string::npos ? "" : destination_.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? destination_ : destination_.substr(slash + 1);
  std::string pattern = dir + "." + base + ".XXXXXX";
  // The signals wait from the file's creation until the handler knows its name.
  InstallSignalCleanup();
  sigset_t ending, previous;
  sigemptyset(&ending);
  for (int signal_number : EndingSignals()) sigaddset(&ending, signal_number);
  pthread_sigmask(SIG_BLOCK, &ending, &previous);
  int fd = mkstemp(pattern.data());
  if (fd >= 0) {
    temp_ = pattern;
    ArmSignalCleanup(temp_);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0) return absl::OkStatus();  // no file can be made there: written in place
  if (fchmod(fd, mode) != 0 || close(fd) != 0) {
    int error = errno;
    Discard();
    return absl::InvalidArgumentError(path + ": cannot write: " + std::strerror(error));
  }
  return absl::OkStatus();
}

std::string OutputFile::Named(std::string message) const {
  if (temp_.empty()) return message;
  return absl::StrReplaceAll(message, {{temp_, path_}});
}

absl::Status OutputFile::Commit() {
  if (temp_.empty()) return absl::OkStatus();
  if (rename(temp_.c_str(), destination_.c_str()) != 0) {
    int error = errno;
    Discard();
    return absl::InternalError(path_ + ": cannot write: " + std::strerror(error));
  }
  DisarmSignalCleanup();
  temp_.clear();
  return absl::OkStatus();
}

void OutputFile::Discard() {
  if (temp_.empty()) return;
  DisarmSignalCleanup();
  unlink(temp_.c_str());
  temp_.clear();
}

}  // namespace napiscope::cli
