#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include <absl/cleanup/cleanup.h>
#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_replace.h>

#include "napiscope/record.h"
#include "napiscope/tracedat_writer.h"
#include "napiscope/unnamed_file.h"
#include "record/cpu_spool.h"
#include "record/owner_lock.h"
#include "record/recent_pages.h"
#include "record/tracefs_session.h"

namespace napiscope {
namespace internal {

constexpr size_t kSpoolFlushBytes = 1 << 20;

absl::Status FlushSpool(const std::string& name, CpuSpool* spool) {
  if (int error = WriteAll(spool->fd, spool->pending.data(), spool->pending.size()); error != 0) {
    std::string message = absl::StrCat(name, ": ", std::strerror(error));
    // A file-size limit (ulimit -f; SIGXFSZ ignored) is a full disk for this file.
    if (error == ENOSPC || error == EDQUOT || error == EFBIG) {
      return absl::ResourceExhaustedError(message);
    }
    return absl::DataLossError(message);
  }
  spool->pending.clear();
  return absl::OkStatus();
}

absl::Status CopySpoolInto(const std::string& name, CpuSpool* spool, TraceDatFileWriter* writer,
                           size_t page_size) {
  if (lseek(spool->fd, 0, SEEK_SET) < 0) {
    return absl::DataLossError(absl::StrCat(name, ": ", std::strerror(errno)));
  }
  std::string chunk(kSpoolFlushBytes - kSpoolFlushBytes % page_size, '\0');
  off_t copied = 0;
  bool can_punch = true;
  while (true) {
    ssize_t n = read(spool->fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::DataLossError(absl::StrCat(name, ": ", std::strerror(errno)));
    if (n == 0) return absl::OkStatus();
    absl::Status status = writer->WritePages(std::string_view(chunk.data(), n));
    if (!status.ok()) return status;
    // The pages are the writer's now: give their blocks back, so the spool shrinks as the
    // trace grows. A file system that cannot punch holes needs room for both.
    if (can_punch &&
        fallocate(spool->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, copied, n) != 0) {
      can_punch = false;
    }
    copied += n;
  }
}

}  // namespace internal

namespace {

using internal::CpuSpool;
using internal::kSpoolFlushBytes;

constexpr absl::string_view kPrivateDirPrefix = ".napiscope-record-";
// The lock a recording holds on its output ("output-HASH", record/owner_lock.h).
constexpr char kOutputLock[] = "output-";

// Empties and removes `name` in `parent_fd` when it is a directory of ours (not a symlink);
// only the files a recording leaves there (a partial trace.dat) are removed.
void RemoveLeftDir(int parent_fd, const char* name) {
  int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat info {};
  DIR* dir = fstat(fd, &info) == 0 && info.st_uid == geteuid() ? fdopendir(fd) : nullptr;
  if (dir == nullptr) {
    close(fd);
    return;
  }
  while (dirent* entry = readdir(dir)) {
    struct stat file {};
    if (fstatat(fd, entry->d_name, &file, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(file.st_mode)) {
      unlinkat(fd, entry->d_name, 0);
    }
  }
  closedir(dir);
  unlinkat(parent_fd, name, AT_REMOVEDIR);
}

// A recording killed with SIGKILL leaves its private directory (.napiscope-record-PID-XXXXXX,
// with a partial trace.dat if it was writing); those of dead processes go at the next start.
void RemoveDirsOfDeadRecordings(const std::string& parent) {
  DIR* dir = opendir(parent.c_str());
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    absl::string_view name = entry->d_name;
    if (!absl::StartsWith(name, kPrivateDirPrefix)) continue;
    absl::string_view rest = name.substr(kPrivateDirPrefix.size());
    int pid = 0;
    if (!absl::SimpleAtoi(rest.substr(0, rest.find('-')), &pid) || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    RemoveLeftDir(dirfd(dir), entry->d_name);
  }
  closedir(dir);
}

// A directory only this process can use, next to `output` (so the finished file is renamed
// into place on the same file system): mkdtemp makes it 0700 and never follows a symlink. Its
// name holds our pid, so a later recording can tell when it was left by a dead one.
absl::Status MakePrivateDir(const std::string& output, std::string* dir) {
  size_t slash = output.rfind('/');
  // (Not `parent = "/"` after the substr: GCC 12 -O2 sees a false overlap there, -Wrestrict.)
  std::string parent = slash == std::string::npos ? std::string(".")
                       : slash == 0                ? std::string("/")
                                                   : output.substr(0, slash);
  RemoveDirsOfDeadRecordings(parent);
  std::string pattern = absl::StrCat(parent, "/", kPrivateDirPrefix, getpid(), "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    // Named as the file the user asked for, as every other output's error is.
    return absl::FailedPreconditionError(
        absl::StrCat(output, ": cannot write: ", std::strerror(errno)));
  }
  *dir = pattern;
  return absl::OkStatus();
}

// After a full disk: each spool keeps its whole pages on disk (a write cut short leaves part
// of one), and whole pages go from the ends of the largest spools until `room_bytes` are free
// for the file's header. Returns the captured pages that are not kept.
int64_t KeepWhatFits(std::vector<CpuSpool>& spools, size_t page_size, uint64_t room_bytes) {
  int64_t not_kept = 0;
  std::vector<int64_t> kept(spools.size(), 0);
  for (size_t i = 0; i < spools.size(); ++i) {
    CpuSpool& spool = spools[i];
    spool.pending.clear();
    off_t end = lseek(spool.fd, 0, SEEK_END);
    kept[i] = std::min<int64_t>(end < 0 ? 0 : end / static_cast<off_t>(page_size), spool.pages);
  }
  int64_t room_pages = static_cast<int64_t>((room_bytes + page_size - 1) / page_size);
  while (room_pages > 0) {
    auto largest = std::max_element(kept.begin(), kept.end());
    if (largest == kept.end() || *largest == 0) break;
    int64_t drop = std::min(*largest, room_pages);
    *largest -= drop;
    room_pages -= drop;
  }
  for (size_t i = 0; i < spools.size(); ++i) {
    off_t kept_bytes = static_cast<off_t>(kept[i] * static_cast<int64_t>(page_size));
    if (ftruncate(spools[i].fd, kept_bytes) != 0) {
      kept[i] = 0;  // cannot tell what is on disk: keep none of this CPU
    }
    not_kept += spools[i].pages - kept[i];
    spools[i].pages = kept[i];
  }
  return not_kept;
}

// The output's name in an error about the private file being written.
absl::Status NamingOutput(const absl::Status& status, const std::string& partial,
                          const std::string& output) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrReplaceAll(status.message(), {{partial, output}}));
}

// Gives the finished file the output's name (a killed or failed recording leaves none) and
// `mode` (0: a new file's, 0666 less the umask).
absl::Status MoveIntoPlace(const std::string& partial, const std::string& output, unsigned mode) {
  if (mode == 0) {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (chmod(partial.c_str(), mode & 07777) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(output, ": ", std::strerror(errno)));
  }
  if (rename(partial.c_str(), output.c_str()) == 0) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(output, ": ", std::strerror(errno)));
}

}  // namespace

absl::Status Record(const RecordOptions& options, RecordResult* result) {
  *result = RecordResult();
  // Spools and the file being written live in a private directory: nothing of anyone else's
  // is clobbered or followed, and the output appears under its name only when complete. It is
  // made before tracing starts, so an output that cannot be written never touches tracefs.
  if (absl::Status usable = RequireFileOutput(options.output_path); !usable.ok()) return usable;
  // One recording per output: a second `record -o SAME` would replace the first one's file
  // and both would say they wrote it. The lock goes with the process, however it ends.
  internal::ForEachAbandonedLock(kOutputLock, [](const std::string&) {});
  internal::OwnerLock output_lock;
  int64_t holder = 0;
  if (output_lock.Take(internal::OutputLockName(kOutputLock, options.output_path), &holder) ==
      internal::OwnerLock::Outcome::kHeld) {
    return absl::AlreadyExistsError(absl::StrCat(
        options.output_path, ": another napiscope record",
        holder > 0 ? absl::StrCat(" (pid ", holder, ")") : "", " is writing it"));
  }
  std::string private_dir;
  absl::Status made = MakePrivateDir(options.output_path, &private_dir);
  if (!made.ok()) return made;
  const std::string partial = private_dir + "/trace.dat";
  absl::Cleanup remove_private_dir = [&private_dir, &partial] {
    unlink(partial.c_str());
    rmdir(private_dir.c_str());
  };
  internal::TracefsSessionOptions session_options;
  session_options.instance_name = options.capture.instance_name;
  session_options.events = options.capture.events;
  session_options.cpus = options.capture.cpus;
  session_options.buffer_kb = options.capture.buffer_kb;
  auto session_or = internal::TracefsSession::Start(session_options);
  if (!session_or.ok()) return session_or.status();
  std::unique_ptr<internal::TracefsSession> session = std::move(*session_or);
  result->events_enabled = session->enabled_events();
  result->events_missing = session->missing_events();

  const std::vector<int> cpus = session->cpus();  // a copy: the session goes first
  std::vector<CpuSpool> spools(cpus.size());
  absl::Cleanup close_spools = [&spools] {
    for (CpuSpool& spool : spools) {
      if (spool.fd >= 0) close(spool.fd);
    }
  };
  // A flight recorder keeps the last keep_ns of pages in memory instead of spooling them all.
  std::unique_ptr<internal::RecentPages> recent;
  internal::PageScanner scanner;
  if (options.keep_ns > 0) {
    recent = std::make_unique<internal::RecentPages>(
        static_cast<size_t>(session->cpu_slots()), options.keep_ns, options.keep_max_bytes);
  }
  for (size_t i = 0; i < cpus.size() && !recent; ++i) {
    std::string name = absl::StrCat(private_dir, "/cpu", cpus[i]);
    spools[i].fd = open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (spools[i].fd < 0) {
      return absl::PermissionDeniedError(absl::StrCat(name, ": ", std::strerror(errno)));
    }
    unlink(name.c_str());
  }
  // Pages go to disk every kSpoolFlushBytes, and ReadPages returns after a bounded number of
  // pages, so memory stays bounded and the stop conditions are checked however fast the
  // kernel writes; what the reader leaves behind, the ring buffer drops and counts. A CPU
  // the cap stopped is read again without sleeping, and once tracing stops every CPU is read
  // to its last page (the cap used to leave the newest pages of a busy CPU unread).
  // A full disk ends the capture; what is on disk then is kept (KeepWhatFits) and the file
  // is marked as cut short.
  bool disk_full = false;
  int full_errno = ENOSPC;  // or EFBIG: the file-size limit
  auto flush = [&](CpuSpool* spool) -> absl::Status {
    absl::Status status = internal::FlushSpool(options.output_path, spool);
    if (status.code() != absl::StatusCode::kResourceExhausted) return status;
    disk_full = true;
    if (absl::StrContains(status.message(), std::strerror(EFBIG))) full_errno = EFBIG;
    return absl::OkStatus();
  };
  RecordProgress progress;  // what on_progress is told
  // Reads every CPU once; `drained`: whether each had no more pages.
  auto read_all = [&](bool* drained) -> absl::Status {
    *drained = true;
    for (size_t i = 0; i < cpus.size() && !disk_full; ++i) {
      CpuSpool& spool = spools[i];
      absl::StatusOr<bool> read = session->ReadPages(i, [&](std::string_view page) {
        progress.bytes += page.size();
        if (options.on_progress && !recent) {
          TimestampNs first_ns = 0, last_ns = 0;
          int64_t events = 0;
          if (scanner.Scan(page, &first_ns, &last_ns, &events).ok()) progress.events += events;
        }
        if (recent) {
          TimestampNs first_ns = 0, last_ns = 0;
          int64_t events = 0;
          absl::Status scanned = scanner.Scan(page, &first_ns, &last_ns, &events);
          if (!scanned.ok()) {
            return absl::DataLossError(absl::StrCat("CPU ", cpus[i], ": ", scanned.message()));
          }
          progress.events += events;
          recent->Add(static_cast<size_t>(cpus[i]), page, first_ns, last_ns, events);
          return absl::OkStatus();
        }
        ++spool.pages;
        if (disk_full) return absl::OkStatus();  // captured, not kept (counted as such)
        spool.pending.append(page);
        if (spool.pending.size() < kSpoolFlushBytes) return absl::OkStatus();
        return flush(&spool);
      });
      if (!read.ok()) return read.status();
      *drained = *drained && *read;
    }
    return absl::OkStatus();
  };

  if (absl::Status started = session->StartTracing(); !started.ok()) return started;
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  if (options.on_started) options.on_started();
  auto elapsed_ns = [&] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  };
  const auto poll = std::chrono::milliseconds(std::max(1, options.poll_interval_ms));
  const int64_t progress_every_ns = int64_t{std::max(1, options.progress_interval_ms)} * 1'000'000;
  int64_t next_progress_ns = progress_every_ns;
  auto report_progress = [&] {
    progress.elapsed_ns = elapsed_ns();
    progress.lost_events = 0;
    for (int cpu : cpus) progress.lost_events += session->LostEvents(cpu);
    options.on_progress(progress);
  };
  while (!disk_full && !(options.stop != nullptr && options.stop->load()) &&
         (options.duration_ns <= 0 || elapsed_ns() < options.duration_ns)) {
    bool drained = true;
    absl::Status status = read_all(&drained);
    if (!status.ok()) return status;
    if (options.on_progress && elapsed_ns() >= next_progress_ns) {
      report_progress();
      next_progress_ns = progress.elapsed_ns + progress_every_ns;
    }
    if (!drained) continue;
    auto sleep = poll;
    if (options.duration_ns > 0) {
      sleep = std::min(sleep, std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::nanoseconds(options.duration_ns - elapsed_ns())) +
                                  std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(sleep);
  }
  result->elapsed_ns = elapsed_ns();
  session->StopTracing();
  bool drained = false;
  absl::Status status;
  while (status.ok() && !drained && !disk_full) status = read_all(&drained);
  for (size_t i = 0; status.ok() && !disk_full && i < spools.size(); ++i) {
    status = flush(&spools[i]);
  }
  if (!status.ok()) return status;
  auto header = session->BuildHeader();
  if (!header.ok()) return header.status();
  if (recent) {
    for (int cpu : cpus) {
      result->cpus.push_back({cpu, static_cast<int64_t>(recent->pages(cpu).size()),
                              session->LostEvents(cpu)});
    }
    session.reset();
    status = internal::WriteRecentPages(*recent, *header, partial, &result->file_bytes);
    if (status.ok()) status = MoveIntoPlace(partial, options.output_path, options.output_mode);
    result->kept_first_ns = recent->first_ns();
    result->kept_last_ns = recent->last_ns();
    result->kept_events = recent->events();
    result->pages_dropped_for_memory = recent->dropped_for_memory();
    return NamingOutput(status, partial, options.output_path);
  }
  header->reserve_pages_not_kept = true;
  if (disk_full) {
    // Room for the header and the file system's bookkeeping; the pages move from the spools
    // into the file without needing more (CopySpoolInto frees what it copied).
    constexpr uint64_t kSlackBytes = 64 << 10;
    result->pages_not_kept = KeepWhatFits(spools, static_cast<size_t>(header->page_size),
                                          TraceDatFileWriter::HeaderBytes(*header) + kSlackBytes);
  }
  for (size_t i = 0; i < cpus.size(); ++i) {
    result->cpus.push_back({cpus[i], spools[i].pages, session->LostEvents(cpus[i])});
  }
  session.reset();  // the instance goes before the (possibly long) write of the file

  TraceDatFileWriter writer;
  status = writer.Open(partial, *header);
  for (size_t i = 0; status.ok() && i < cpus.size(); ++i) {
    status = writer.BeginCpu(cpus[i]);
    if (status.ok()) {
      status = internal::CopySpoolInto(options.output_path, &spools[i], &writer,
                                       static_cast<size_t>(header->page_size));
    }
    if (status.ok()) status = writer.EndCpu();
  }
  writer.SetPagesNotKept(static_cast<uint64_t>(result->pages_not_kept));
  absl::Status closed = writer.Close();
  if (status.ok()) status = closed;
  // The writer names the file it writes, the private one: the user knows the output's name.
  if (!status.ok()) return NamingOutput(status, partial, options.output_path);
  result->file_bytes = writer.bytes();
  status = MoveIntoPlace(partial, options.output_path, options.output_mode);
  if (status.ok() && disk_full) {
    int64_t kept = 0;
    for (const RecordCpuStats& cpu : result->cpus) kept += cpu.pages;
    status = absl::ResourceExhaustedError(absl::StrCat(
        options.output_path, ": ", std::strerror(full_errno), "; kept what fitted (", kept,
        " pages), marked as cut short (", result->pages_not_kept, " captured pages not kept)"));
  }
  return status;
}

}  // namespace napiscope
