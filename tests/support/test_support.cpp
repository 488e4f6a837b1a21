#include "support/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "napiscope/analysis_session.h"
#include "napiscope/analysis_requirements.h"
#include "napiscope/contexts.h"
#include "napiscope/loader.h"
#include "napiscope/timeline_builder.h"

namespace napiscope::testing {

std::string TestData(const std::string& relative) {
  return std::string(NAPISCOPE_TESTDATA) + "/" + relative;
}

namespace {

// The directories MakeTempDir made, removed when the test process that made them exits (not
// when a child it forked does).
class TempDirs {
 public:
  ~TempDirs() {
    if (getpid() != owner_) return;
    for (const std::string& dir : dirs_) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }
  void Add(std::string dir) {
    std::lock_guard lock(mutex_);
    dirs_.push_back(std::move(dir));
  }

 private:
  const pid_t owner_ = getpid();
  std::mutex mutex_;
  std::vector<std::string> dirs_;
};

}  // namespace

std::string MakeTempDir() {
  static TempDirs made;
  char pattern[] = "/tmp/napiscope-test-XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (dir == nullptr) return "/tmp";
  made.Add(dir);
  return dir;
}

absl::Status SummarizeTrace(const std::string& path, TraceSummary* summary) {
  TraceContext context;
  TraceSummaryBuilder builder;
  absl::Status status = LoadTrace(path, context, builder);
  if (status.ok()) {
    *summary = FinishSummary(builder, context);
  }
  return status;
}

Timeline BuildStandaloneTimeline(const std::function<void(EventSink&)>& play,
                                 ContextListener* also) {
  ContextTracker tracker;
  TimelineBuilder builder;
  tracker.AddListener(&builder);
  if (also != nullptr) tracker.AddListener(also);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&builder);
  play(fanout);
  return builder.Finish();
}

absl::Status LoadStandaloneTimeline(const std::string& path, Timeline* timeline) {
  TraceContext context;
  absl::Status status;
  Timeline built =
      BuildStandaloneTimeline([&](EventSink& sink) { status = LoadTrace(path, context, sink); });
  if (status.ok()) *timeline = std::move(built);
  return status;
}

absl::Status AnalyzeTraceWithoutFlags(const std::string& path, Report* report) {
  // Every event reaches the pipeline with its common_flags cleared, nothing else changed.
  struct DropFlags : EventSink {
    explicit DropFlags(EventSink* next) : next(next) {}
    void OnBegin(const TraceContext& context) override { next->OnBegin(context); }
    void OnEvent(const Event& event) override {
      Event copy = event;
      copy.flags = 0;
      next->OnEvent(copy);
    }
    void OnEnd() override { next->OnEnd(); }
    EventSink* next;
  };
  TraceContext context;
  AnalysisSession pipeline(AnalysisOptions{});
  DropFlags drop(&pipeline);
  absl::Status status = LoadTrace(path, context, drop);
  if (status.ok()) *report = pipeline.Finish(context);
  return status;
}

CommandResult RunCommand(const std::string& command) {
  std::string dir = MakeTempDir();
  std::string out = dir + "/out", err = dir + "/err";
  CommandResult result;
  // Without the caller's COLUMNS, so text written to a pipe wraps at each command's default.
  int status = std::system(
      ("(unset COLUMNS; " + command + ") >" + out + " 2>" + err + " </dev/null").c_str());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(out);
  result.err = ReadFile(err);
  std::system(("rm -rf " + dir).c_str());
  return result;
}

std::string CliPath() { return NAPISCOPE_CLI; }

bool HaveProgram(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

std::string TestDataName(const std::string& relative) {
  std::string name = relative.substr(relative.find('/') + 1);
  name = name.substr(0, name.find('.'));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

}  // namespace napiscope::testing
