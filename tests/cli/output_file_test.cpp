// Outputs appear whole or not at all (cli/output_file.h): `export` and `report -o` write a
// temporary file beside the output and rename it over the output at the end, so a full disk,
// a failed load or a kill leaves the previous file (or none), never a truncated one.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace napiscope::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

mode_t Mode(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

std::string Server16() { return TestData("real/server16-softirq-napi.dat"); }

TEST(OutputFile, ExportReplacesAnExistingFileWholeKeepingItsModeAndTheLinkToIt) {
  std::string dir = MakeTempDir();
  std::string fresh = dir + "/fresh.pftrace";
  std::string kept = dir + "/kept.pftrace";
  ASSERT_EQ(RunCommand(CliPath() + " export --format perfetto -q -o " + fresh + " " + Server16())
                .exit_code,
            0);
  WriteFile(kept, "an older export");
  ASSERT_EQ(chmod(kept.c_str(), 0640), 0);
  ASSERT_EQ(symlink("kept.pftrace", (dir + "/link.pftrace").c_str()), 0);
  CommandResult result = RunCommand(CliPath() + " export --format perfetto -q -o " + dir +
                                    "/link.pftrace " + Server16());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(ReadFile(kept) == ReadFile(fresh)) << "the link's target holds the new export";
  EXPECT_TRUE(fs::is_symlink(dir + "/link.pftrace"));
  EXPECT_EQ(Mode(kept), 0640u);
  EXPECT_EQ(Listing(dir),
            (std::vector<std::string>{"fresh.pftrace", "kept.pftrace", "link.pftrace"}));
}

// A disk that fills: one line naming the output (not the temporary file), exit 1, the
// previous file untouched and nothing else left, for the streamed export and for `report -o`.
TEST(OutputFile, AFullDiskLeavesThePreviousFileAndNamesTheOutput) {
  std::string small = MakeTempDir();
  CommandResult mounted = RunCommand("mount -t tmpfs -o size=64k napiscope-test " + small);
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs: " << mounted.err;
  std::string out = small + "/out.pftrace";
  std::string json = small + "/report.json";
  WriteFile(out, "the previous export");
  WriteFile(json, "{}");
  CommandResult exported =
      RunCommand(CliPath() + " export --format perfetto -q -o " + out + " " + Server16());
  CommandResult reported =
      RunCommand(CliPath() + " report --format json -o " + json + " " + Server16());
  std::string previous_export = ReadFile(out);
  std::string previous_report = ReadFile(json);
  std::vector<std::string> left = Listing(small);
  RunCommand("umount -l " + small);
  EXPECT_EQ(exported.exit_code, 1);
  EXPECT_EQ(exported.err, "napiscope: " + out + ": cannot write: No space left on device\n");
  EXPECT_EQ(reported.exit_code, 1);
  EXPECT_EQ(reported.err,
            "napiscope report: " + json + ": cannot write: No space left on device\n");
  EXPECT_EQ(previous_export, "the previous export");
  EXPECT_EQ(previous_report, "{}");
  EXPECT_EQ(left, (std::vector<std::string>{"out.pftrace", "report.json"}));
}

// Killed by `signal_number` while it writes: the temporary file goes with the process and no
// output appears. The export is stopped as soon as its temporary file exists, then signalled;
// a run that ended before it could be stopped is tried again.
void ExpectASignalledExportLeavesNoFile(int signal_number) {
  std::string dir = MakeTempDir();
  std::string out = dir + "/out.pftrace";
  std::string cli = CliPath();
  std::string trace = Server16();
  for (int attempt = 0; attempt < 5; ++attempt) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      signal(signal_number, SIG_DFL);
      execl(cli.c_str(), cli.c_str(), "export", "--format", "perfetto", "-q", "-o", out.c_str(),
            trace.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    bool stopped = false;
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!stopped && std::chrono::steady_clock::now() < give_up) {
      std::vector<std::string> names = Listing(dir);
      if (!names.empty() && names.front().starts_with(".out.pftrace.")) {
        kill(child, SIGSTOP);
        stopped = true;
      } else if (waitpid(child, nullptr, WNOHANG) == child) {
        break;  // ended before its temporary file was seen
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
    int status = 0;
    if (!stopped) {
      fs::remove(out);
      continue;
    }
    ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
    if (!WIFSTOPPED(status)) {  // it ended between the look and the stop
      fs::remove(out);
      continue;
    }
    kill(child, signal_number);
    kill(child, SIGCONT);
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_TRUE(Listing(dir).empty()) << "left: " << Listing(dir).front();
    return;
  }
  FAIL() << "the export ended before it could be stopped, five times";
}

TEST(OutputFile, AKilledExportLeavesNoFile) { ExpectASignalledExportLeavesNoFile(SIGTERM); }

// Every signal that ends a process is handled as SIGTERM: SIGUSR1, SIGALRM and the others
// killed the export and left its .out.pftrace.XXXXXX (issue 64).
TEST(OutputFile, EveryTerminatingSignalLeavesNoFile) {
  for (int signal_number : {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGRTMIN + 3}) {
    SCOPED_TRACE(signal_number);
    ExpectASignalledExportLeavesNoFile(signal_number);
  }
}

// Past `ulimit -f`, SIGXFSZ killed `report -o` and `export -o` without a word, leaving their
// temporary file (issue 64): now the write fails with EFBIG, one line as for a full disk.
TEST(OutputFile, AFileSizeLimitIsOneLineLikeAFullDiskAndLeavesThePreviousFile) {
  std::string dir = MakeTempDir();
  std::string out = dir + "/out.pftrace";
  std::string json = dir + "/report.json";
  WriteFile(out, "the previous export");
  WriteFile(json, "{}");
  // 16 blocks (8 or 16 KiB, as the shell counts them): far less than either output.
  CommandResult exported = RunCommand("ulimit -f 16; " + CliPath() +
                                      " export --format perfetto -q -o " + out + " " + Server16());
  CommandResult reported = RunCommand("ulimit -f 16; " + CliPath() + " report --format json -o " +
                                      json + " " + Server16());
  EXPECT_EQ(exported.exit_code, 1);
  EXPECT_EQ(exported.err, "napiscope: " + out + ": cannot write: File too large\n");
  EXPECT_EQ(reported.exit_code, 1);
  EXPECT_EQ(reported.err, "napiscope report: " + json + ": cannot write: File too large\n");
  EXPECT_EQ(ReadFile(out), "the previous export");
  EXPECT_EQ(ReadFile(json), "{}");
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{"out.pftrace", "report.json"}));
}

}  // namespace
}  // namespace napiscope::testing
