#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "capture_args.h"
#include "cli_common.h"
#include "commands.h"
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

// Starts `command` once tracing runs; a thread waits for it and then asks the recording to stop.
class TracedCommand {
 public:
  explicit TracedCommand(std::vector<std::string> argv) : argv_(std::move(argv)) {}
  ~TracedCommand() {
    if (waiter_.joinable()) waiter_.join();
  }

  void Start() {
    pid_ = fork();
    if (pid_ == 0) {
      close_range(3, ~0U, 0);  // trace_pipe_raw files left open would keep the instance busy
      std::vector<char*> args;
      for (std::string& arg : argv_) args.push_back(arg.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::cerr << "napiscope record: " << argv_[0] << ": " << std::strerror(errno) << "\n";
      _exit(127);
    }
    if (pid_ < 0) {
      StopRequested().store(true);
      return;
    }
    waiter_ = std::thread([this] {
      // Wait without reaping, so the pid stays the command's while Terminate may signal it.
      siginfo_t info{};
      while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0 &&
             errno == EINTR) {
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        exited_ = true;
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
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

 private:
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  std::mutex mutex_;
  bool exited_ = false;  // reaped (guarded by mutex_)
  std::thread waiter_;
};

int RunRecord(const RecordArgs& args) {
  RecordOptions options;
  std::string error;
  if (!ResolveCaptureArgs(args.capture, &options.capture, &error)) {
    std::cerr << "napiscope record: " << error << "\n";
    return kExitError;
  }
  options.output_path = args.output;
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
  RecordResult result;
  absl::Status status = Record(options, &result);
  // Stopped by an error or a signal (SIGHUP, SIGTERM, ... sent to napiscope alone): the command
  // is not left running and waited for; after --duration it runs to its end.
  if (command && (!status.ok() || StopRequested().load())) command->Terminate();
  command.reset();  // waits for the command
  if (!result.events_missing.empty()) {
    std::cerr << "napiscope record: not on this kernel, skipped: "
              << JoinList(result.events_missing) << "\n";
  }
  if (!status.ok()) {
    std::cerr << "napiscope record: " << status.message() << "\n";
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
  std::cerr << "napiscope record: wrote " << args.output << " (" << result.file_bytes
            << " bytes, " << pages << " pages, " << result.events_enabled.size() << " events "
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
  return kExitClean;
}

}  // namespace

void AddRecordCommand(CLI::App& app, std::function<int()>* run) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* record = app.add_subcommand(
      "record", "Record a trace.dat with libtracefs alone (no function tracer needed), in a "
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
      "  napiscope record -o last5s.dat --keep 5    # Ctrl-C writes the last 5 s\n"
      "Presets and what each event is for: docs/record.md");
  record->callback([args, run] { *run = [args] { return RunRecord(*args); }; });
}

}  // namespace napiscope::cli
