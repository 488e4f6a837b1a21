#include "trace_arguments.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <absl/cleanup/cleanup.h>

#include "napiscope/loader.h"
#include "napiscope/unnamed_file.h"

namespace napiscope::cli {
namespace {

// A stream copied into a temporary file: the path loads read and the name messages give.
struct Copy {
  std::string read_path;
  std::string name;
};

std::vector<Copy>& Copies() {
  static std::vector<Copy> copies;
  return copies;
}

// True for a pipe reached through a link (/dev/stdin, /dev/fd/N of `<(...)`: the shell's,
// with its writer) and for a file whose size reads 0 (tracefs's `trace`, /proc). A named pipe,
// which may have no writer ever, and devices (/dev/zero never ends) are left to the load,
// which refuses them.
bool IsStream(const std::string& argument) {
  if (argument == "-") return true;
  struct stat info {}, link {};
  if (stat(argument.c_str(), &info) != 0 || lstat(argument.c_str(), &link) != 0) return false;
  if (S_ISREG(info.st_mode)) return info.st_size == 0;
  return S_ISFIFO(info.st_mode) && S_ISLNK(link.st_mode);
}

// tracefs's pipes never end: reading one waits for events forever.
bool IsTracePipe(const std::string& argument) {
  size_t slash = argument.rfind('/');
  std::string base = slash == std::string::npos ? argument : argument.substr(slash + 1);
  return base == "trace_pipe" || base == "trace_pipe_raw";
}

// Reads from `in` into `head` until it holds `bytes` or `in` ends; errno of a failed read, 0.
int ReadHead(int in, size_t bytes, std::string* head) {
  head->resize(bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = read(in, head->data() + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  head->resize(got);
  return 0;
}

// Copies `head` and then `in` to `out` up to the end of `in`; errno of the first failure
// (`*reading`: of a read), 0 when whole.
int CopyStream(std::string_view head, int in, int out, bool* reading) {
  *reading = false;
  if (int error = WriteAll(out, head.data(), head.size()); error != 0) return error;
  std::vector<char> buffer(1 << 20);
  while (true) {
    ssize_t got = read(in, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    *reading = got < 0;
    if (got < 0) return errno;
    if (got == 0) return 0;
    if (int error = WriteAll(out, buffer.data(), static_cast<size_t>(got)); error != 0) {
      return error;
    }
  }
}

}  // namespace

bool ResolveTraceArgument(std::string* argument, std::string* error) {
  if (!IsStream(*argument)) return true;
  const bool standard_input = *argument == "-";
  std::string name = ShownPath(*argument);
  if (IsTracePipe(*argument)) {
    *error = name + ": never ends (it waits for the next event): napiscope live analyses "
                    "events as they come; or give tracefs's `trace`, or keep some first "
                    "(timeout 10 cat trace_pipe > t.txt)";
    return false;
  }
  if (standard_input && isatty(STDIN_FILENO)) {
    *error = name + ": is a terminal: pipe a trace into it (trace-cmd report -i trace.dat | "
                    "napiscope report -) or name a file";
    return false;
  }
  int in = standard_input ? STDIN_FILENO : open(argument->c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    *error = name + ": " + std::strerror(errno);
    return false;
  }
  absl::Cleanup close_in = [in, standard_input] {
    if (!standard_input) close(in);
  };
  // Judged by its first bytes before it is copied: /dev/zero or random bytes piped in would be
  // copied for ever.
  std::string head;
  if (int failure = ReadHead(in, TraceStartBytes(), &head); failure != 0) {
    *error = name + ": " + std::strerror(failure);
    return false;
  }
  TraceFormat format;
  if (absl::Status status = DetectTraceFormatOfStart(head, &format); !status.ok()) {
    *error = name + ": " + std::string(status.message());
    return false;
  }
  std::string dir;
  int out = OpenUnnamedTemporaryFile(&dir);
  bool reading = false;
  int failure = out < 0 ? errno : CopyStream(head, in, out, &reading);
  if (failure != 0) {
    *error = reading ? name + ": " + std::strerror(failure)
                     : name + ": cannot copy it into " + dir + " to read it: " +
                           std::strerror(failure);
    if (out >= 0) close(out);
    return false;
  }
  // The descriptor stays open: the copy lives as long as the process.
  Copies().push_back({DescriptorPath(out), name});
  *argument = Copies().back().read_path;
  return true;
}

std::string ShownPath(const std::string& path) {
  for (const Copy& copy : Copies()) {
    if (copy.read_path == path) return copy.name;
  }
  return path == "-" ? "stdin" : path;
}

}  // namespace napiscope::cli
