#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <thread>

#include "capture_args.h"
#include "commands.h"
#include "napiscope/format.h"
#include "napiscope/record.h"

namespace napiscope::cli {
namespace {

struct RecordArgs {
  std::string output;
  double duration_s = 0;
  CaptureArgs capture;
  std::vector<std::string> command;
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
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      StopRequested().store(true);
    });
  }

  /// Asks the command to end (recording failed).
  void Terminate() {
    if (pid_ > 0) kill(pid_, SIGTERM);
  }

 private:
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
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
  options.duration_ns = static_cast<TimestampNs>(std::llround(args.duration_s * 1e9));
  options.stop = &StopRequested();
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
  if (!status.ok() && command) command->Terminate();
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
  record->add_option("--duration", args->duration_s, "seconds to record (default: until the "
                                                     "command ends or Ctrl-C)")
      ->check(CLI::PositiveNumber);
  AddCaptureFlags(record, &args->capture, "napiscope");
  record->add_option("COMMAND", args->command, "command to run and trace, after --");
  record->footer(
      "Examples:\n  napiscope record -o trace.dat --duration 5\n"
      "  napiscope record -o trace.dat --events minimal --cpus 0-1 -- iperf3 -c 10.0.0.2\n"
      "Presets and what each event is for: docs/record.md");
  record->callback([args, run] { *run = [args] { return RunRecord(*args); }; });
}

}  // namespace napiscope::cli
