#include "napiscope/loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <absl/strings/cord.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>

#include "load/text_input.h"
#include "load/text_loader.h"
#include "load/time_plausibility.h"
#include "load/tracedat_header_reader.h"
#include "load/tracedat_loader.h"
#include "load/whole_file_decompress.h"
#include "napiscope/format.h"

namespace napiscope {
namespace {

constexpr size_t kSniffBytes = 64 * 1024;

absl::Status WithPath(const std::string& path, const absl::Status& status) {
  if (status.ok()) return status;
  absl::Status named(status.code(), absl::StrCat(path.empty() ? "''" : OneLine(path), ": ",
                                                 OneLine(std::string(status.message()))));
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord& payload) {
    named.SetPayload(type_url, payload);
  });
  return named;
}

// Checks the path is a readable, non-empty regular file and returns its first bytes.
absl::Status Sniff(const std::string& path, std::string* head) {
  struct stat st;
  if (path.empty()) return absl::InvalidArgumentError("an empty path names no trace file");
  if (stat(path.c_str(), &st) != 0) return absl::NotFoundError(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return absl::InvalidArgumentError("is a directory, not a trace file");
  if (S_ISFIFO(st.st_mode)) {
    // Opening it would wait for a writer that may never come; standard input has one.
    return absl::InvalidArgumentError(
        "is a named pipe, which may never get a writer: give it as standard input "
        "(napiscope report - < PIPE)");
  }
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    return absl::InvalidArgumentError("is a device, not a trace file");
  }
  if (!S_ISREG(st.st_mode)) return absl::InvalidArgumentError("is not a regular file");
  // Non-blocking: the probe of a size-0 file must not wait on tracefs's trace_pipe.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return absl::PermissionDeniedError(std::strerror(errno));
  if (st.st_size == 0) {
    char byte = 0;
    ssize_t n = read(fd, &byte, 1);
    bool holds_data = n == 1 || (n < 0 && errno == EAGAIN);
    close(fd);
    return absl::InvalidArgumentError(
        holds_data ? "its size reads 0 but it holds data (tracefs, /proc): copy it to a file "
                     "first (the napiscope command reads such files itself)"
                   : "empty file");
  }
  head->resize(std::min<size_t>(kSniffBytes, static_cast<size_t>(st.st_size)));
  ssize_t n = pread(fd, head->data(), head->size(), 0);
  int read_errno = errno;
  close(fd);
  if (n < 0) return absl::DataLossError(std::strerror(read_errno));
  head->resize(static_cast<size_t>(n));
  return absl::OkStatus();
}

// The format the first bytes of a file, `head`, start; `*whole_file` is the compression of a
// trace.dat compressed whole (kNone for a plain one).
absl::Status DetectFromHead(std::string_view head, TraceFormat* format,
                            internal::TextCompression* whole_file) {
  *whole_file = internal::TextCompression::kNone;
  if (head.empty()) return absl::InvalidArgumentError("empty file");
  if (internal::HasTraceDatMagic(head.data(), head.size())) {
    *format = TraceFormat::kTraceDat;
    return absl::OkStatus();
  }
  internal::TextCompression compression = internal::CompressionOf(head);
  if (compression != internal::TextCompression::kNone) {
    std::string start = internal::DecompressPrefix(head, 16);
    if (internal::HasTraceDatMagic(start.data(), start.size())) {
      *format = TraceFormat::kTraceDat;
      *whole_file = compression;
      return absl::OkStatus();
    }
  }
  if (internal::LooksLikeTraceText(head, format)) return absl::OkStatus();
  if (head.size() >= 3 && head.compare(0, 3, "\x17\x08\x44") == 0) {
    return absl::InvalidArgumentError("trace.dat magic is damaged");
  }
  if (std::string_view packing = internal::UnreadPackingOf(head); !packing.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", std::string(packing),
                     " file: take the trace out of it first (napiscope reads trace.dat and "
                     "text plain or compressed with gzip, zstd or xz)"));
  }
  return absl::InvalidArgumentError(
      "not a trace: neither a trace.dat file nor ftrace, trace-cmd report or perf script text");
}

absl::Status Detect(const std::string& path, TraceFormat* format,
                    internal::TextCompression* whole_file) {
  std::string head;
  absl::Status status = Sniff(path, &head);
  if (!status.ok()) return status;
  return DetectFromHead(head, format, whole_file);
}

}  // namespace

size_t TraceStartBytes() { return kSniffBytes; }

absl::Status DetectTraceFormatOfStart(std::string_view head, TraceFormat* format) {
  internal::TextCompression whole_file;
  return DetectFromHead(head, format, &whole_file);
}

std::vector<std::string> BufferChoices(const absl::Status& status) {
  auto payload = status.GetPayload(kBufferChoicesPayload);
  if (!payload) return {};
  return absl::StrSplit(std::string(*payload), '\n', absl::SkipEmpty());
}

absl::Status DetectTraceFormat(const std::string& path, TraceFormat* format) {
  internal::TextCompression whole_file;
  return WithPath(path, Detect(path, format, &whole_file));
}

absl::Status LoadTrace(const std::string& path, TraceContext& context, EventSink& sink,
                       const LoadOptions& options) {
  const std::string& name = options.name.empty() ? path : options.name;
  TraceFormat format;
  internal::TextCompression whole_file;
  absl::Status status = Detect(path, &format, &whole_file);
  if (!status.ok()) return WithPath(name, status);
  context.meta.path = name;
  context.meta.format = format;
  // Both loaders hand their events through the same time-plausibility rule.
  internal::TimePlausibilityGuard guard(context, sink);
  if (whole_file != internal::TextCompression::kNone) {
    // Decompressing is the first fifth of the progress, reading the trace.dat the rest.
    constexpr double kDecompressShare = 0.2;
    internal::DecompressedFile plain;
    status = plain.Open(path, whole_file, options, kDecompressShare);
    if (!status.ok()) return WithPath(name, status);
    LoadOptions rest = options;
    if (options.progress) {
      rest.progress = [&options](double fraction) {
        options.progress(kDecompressShare + (1 - kDecompressShare) * fraction);
      };
    }
    status = internal::LoadTraceDat(plain.path(), context, guard, rest);
  } else if (format == TraceFormat::kTraceDat) {
    status = internal::LoadTraceDat(path, context, guard, options);
  } else {
    status = internal::LoadTraceText(path, context, guard, options);
  }
  if (status.ok()) {
    for (std::string& warning : guard.Warnings()) {
      context.meta.warnings.push_back(std::move(warning));
    }
  }
  return WithPath(name, status);
}

}  // namespace napiscope
