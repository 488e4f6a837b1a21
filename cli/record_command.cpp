#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "capture_args.h"
#include "cli_common.h"
#include "commands.h"
#include "live_summary.h"
#include "output_file.h"
#include "napiscope/format.h"
#include "napiscope/record.h"

namespace napiscope::cli {
namespace {

struct RecordArgs {
  std::string output;
  int64_t duration_ns = 0;  // 0: until the command ends or Ctrl-C
  CaptureArgs capture;
  std::vector<std::string> command;
  int64_t keep_ns = 0;    // > 0: keep only the last of the events, in memory
  int64_t keep_mb = 256;  // memory they may take
};

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Removes `path` when it is a regular file (a device or pipe given as the output stays).
void RemoveRegularFile(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) unlink(path.c_str());
}

// Starts `command` once tracing runs; a thread waits for it and then asks the recording to stop.
class TracedCommand {
 public:
  explicit TracedCommand(std::vector<std::string> argv) : argv_(std::move(argv)) {}
  ~TracedCommand() { Wait(); }

  void Start() {
    // The child writes execvp's errno here when the command cannot run; a successful exec
    // closes it (O_CLOEXEC) unwritten.
    int exec_error[2];
    if (pipe2(exec_error, O_CLOEXEC) != 0) {
      start_errno_ = errno;
      StopRequested().store(true);
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      // trace_pipe_raw files left open would keep the instance busy: only the error pipe
      // stays, as descriptor 3.
      signal(SIGXFSZ, SIG_DFL);  // napiscope ignores it (main); the command gets the default
      if (exec_error[1] != 3) dup2(exec_error[1], 3);
      fcntl(3, F_SETFD, FD_CLOEXEC);
      close_range(4, ~0U, 0);
      std::vector<char*> args;
      for (std::string& arg : argv_) args.push_back(arg.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      int error = errno;
      (void)!write(3, &error, sizeof error);
      _exit(127);
    }
    close(exec_error[1]);
    if (pid_ < 0) {
      start_errno_ = errno;
      close(exec_error[0]);
      StopRequested().store(true);
      return;
    }
    waiter_ = std::thread([this, read_end = exec_error[0]] {
      int error = 0;
      ssize_t got;
      while ((got = read(read_end, &error, sizeof error)) < 0 && errno == EINTR) {
      }
      close(read_end);
      if (got == static_cast<ssize_t>(sizeof error)) start_errno_ = error;
      // Wait without reaping, so the pid stays the command's while Terminate may signal it.
      siginfo_t info{};
      while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0 &&
             errno == EINTR) {
      }
      // Ctrl-C reaches the command too, and napiscope's stop ends it: neither is its failure.
      stopped_first_ = StopRequested().load();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        exited_ = true;
        while (waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
        }
      }
      StopRequested().store(true);
    });
  }

  /// Asks the command to end (the recording failed or was stopped by a signal), unless it has.
  void Terminate() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pid_ > 0 && !exited_) kill(pid_, SIGTERM);
  }

  /// Waits for the command to end.
  void Wait() {
    if (waiter_.joinable()) waiter_.join();
  }

  /// After Wait: why the command could not start (errno of fork or execvp), or "".
  std::string StartError() const {
    if (start_errno_ == 0) return "";
    return "cannot run " + argv_[0] + ": " + std::strerror(start_errno_);
  }

  /// After Wait: how the command ended when it did not succeed ("exited with status 3",
  /// "was killed by SIGKILL"), or "" when it exited with 0, never started, or was killed
  /// after the recording was asked to stop (Ctrl-C, SIGTERM to napiscope).
  std::string Failure() const {
    if (start_errno_ != 0 || pid_ <= 0) return "";
    if (WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) != 0) {
      return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
    }
    if (WIFSIGNALED(wait_status_) && !stopped_first_) {
      const char* name = sigabbrev_np(WTERMSIG(wait_status_));
      return "was killed by " +
             (name != nullptr ? "SIG" + std::string(name) : std::to_string(WTERMSIG(wait_status_)));
    }
    return "";
  }

 private:
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  std::mutex mutex_;
  bool exited_ = false;  // reaped (guarded by mutex_)
  int wait_status_ = 0;  // waitpid's, once reaped
  int start_errno_ = 0;  // fork's or execvp's errno when the command did not start
  bool stopped_first_ = false;  // the recording was asked to stop before the command ended
  std::thread waiter_;
};

int RunRecord(const RecordArgs& args) {
  RecordOptions options;
  std::string error;
  if (!ResolveCaptureArgs(args.capture, &options.capture, &error)) {
    std::cerr << "napiscope record: " << error << "\n";
    return kExitError;
  }
  // The output policy of every command (output_file.h): a symlink's file is replaced, an
  // existing file keeps its permissions.
  OutputTarget target = ResolveOutputTarget(args.output);
  options.output_path = target.destination;
  options.output_mode = target.mode;
  options.duration_ns = args.duration_ns;
  options.stop = &StopRequested();
  options.keep_ns = args.keep_ns;
  options.keep_max_bytes = static_cast<size_t>(args.keep_mb) << 20;
  InstallStopSignals(options.capture.instance_name);
  std::unique_ptr<TracedCommand> command;
  if (!args.command.empty()) {
    command = std::make_unique<TracedCommand>(args.command);
    options.on_started = [&command] { command->Start(); };
  } else if (options.duration_ns == 0) {
    std::cerr << "napiscope record: recording until Ctrl-C\n";
  }
  // On a terminal, a running line as `live` keeps: events, lost, size, time.
  bool running_line = isatty(STDERR_FILENO) != 0;
  if (running_line) {
    options.on_progress = [](const RecordProgress& progress) {
      std::cerr << "\r\x1b[K" << RecordProgressLine(progress) << std::flush;
    };
  }
  RecordResult result;
  absl::Status status = Record(options, &result);
  if (running_line) std::cerr << "\r\x1b[K" << std::flush;
  // Stopped by an error or a signal (SIGHUP, SIGTERM, ... sent to napiscope alone): the command
  // is not left running and waited for; after --duration it runs to its end.
  if (command && (!status.ok() || StopRequested().load())) command->Terminate();
  if (command) command->Wait();
  if (!result.events_missing.empty()) {
    std::cerr << "napiscope record: not on this kernel, skipped: "
              << JoinList(result.events_missing) << "\n";
  }
  if (!status.ok()) {
    std::cerr << "napiscope record: " << status.message() << "\n";
    return kExitError;
  }
  // A command that never ran leaves a trace without it: an error, and no file to mistake
  // for its trace.
  if (std::string not_run = command ? command->StartError() : ""; !not_run.empty()) {
    std::cerr << "napiscope record: " << not_run << "; " << args.output << " not kept\n";
    RemoveRegularFile(options.output_path);
    return kExitError;
  }
  int64_t pages = 0;
  std::string lost;
  for (const RecordCpuStats& cpu : result.cpus) {
    pages += cpu.pages;
    if (cpu.lost_events > 0) {
      lost += (lost.empty() ? "" : ", ") + std::string("CPU") + std::to_string(cpu.cpu) + " " +
              std::to_string(cpu.lost_events);
    }
  }
  std::cerr << "napiscope record: wrote " << args.output << " (" << result.file_bytes << " bytes, "
            << pages << " pages, " << result.events_enabled.size() << " events "
            << "enabled, " << FormatDuration(result.elapsed_ns) << ")\n";
  if (options.keep_ns > 0) {
    std::cerr << "napiscope record: kept the last "
              << FormatDuration(result.kept_last_ns - result.kept_first_ns) << " ("
              << result.kept_events << " events, " << FormatTimestamp(result.kept_first_ns)
              << " to " << FormatTimestamp(result.kept_last_ns) << " s)";
    if (result.pages_dropped_for_memory > 0) {
      std::cerr << "; " << result.pages_dropped_for_memory
                << " older pages went to stay within --keep-mb";
    }
    std::cerr << "\n";
  }
  if (!lost.empty()) {
    std::cerr << "napiscope record: the ring buffer lost events (" << lost
              << "); a larger --buffer-kb or a faster disk helps\n";
  }
  if (std::string failure = command ? command->Failure() : ""; !failure.empty()) {
    std::cerr << "napiscope record: note: " << args.command[0] << " " << failure
              << " (the trace holds its run)\n";
  }
  return kExitClean;
}

}  // namespace

void AddRecordCommand(CLI::App& app, std::function<int()>* run) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* record = app.add_subcommand(
      "record",
      "Record a trace.dat with libtracefs alone (no function tracer needed), in a "
      "tracefs instance of its own; needs root");
  record->add_option("-o,--output", args->output, "trace.dat to write")->required();
  AddSecondsOption(record, "--duration", &args->duration_ns,
                   "time to record (default: until the command ends or Ctrl-C)", 1,
                   std::numeric_limits<int64_t>::max());
  AddSecondsOption(record, "--keep", &args->keep_ns,
                   "flight recorder: keep only the last SECONDS of events, in memory, and "
                   "write them when the recording stops",
                   1, std::numeric_limits<int64_t>::max());
  record
      ->add_option("--keep-mb", args->keep_mb, "MiB --keep may hold; the oldest pages go beyond it")
      ->type_name("MIB")
      ->capture_default_str()
      ->check(WholeNumber(1, int64_t{1} << 20));
  AddCaptureFlags(record, &args->capture, "napiscope");
  record->add_option("COMMAND", args->command, "command to run and trace, after --");
  record->footer(
      "Examples:\n  napiscope record -o trace.dat --duration 5\n"
      "  napiscope record -o trace.dat --events minimal --cpus 0-1 -- iperf3 -c HOST\n"
      "  napiscope record -o last5s.dat --keep 5    # Ctrl-C writes the last 5 s\n" +
      PresetsHelp());
  record->callback([args, run] { *run = [args] { return RunRecord(*args); }; });
}

}  // namespace napiscope::cli
