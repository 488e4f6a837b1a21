// Traces given as streams (cli/trace_arguments.h): standard input ("-"), pipes, and files whose
// size reads 0 (tracefs's `trace`) are read as the file they carry, and named as given.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::testing::HasSubstr;

// The JSON report with its "path" taken out, to compare two readings of one trace.
nlohmann::json WithoutPath(const std::string& text, std::string* path) {
  nlohmann::json report = nlohmann::json::parse(text);
  *path = report["trace"]["path"];
  report["trace"].erase("path");
  return report;
}

// A trace.dat and a text trace piped into `report -`: the report of the file, named "stdin",
// and a window from the trace start (a second reading of the stream) works.
TEST(StreamInput, StandardInputGivesTheFilesReportNamedStdin) {
  for (const char* name : {"real/short-v6.dat", "text/short-v6.per-cpu.txt.xz"}) {
    std::string trace = TestData(name);
    for (const char* flags : {"", " --from +20ms --cpu 1"}) {
      auto direct = RunCommand(CliPath() + " report --format json" + flags + " " + trace);
      auto piped =
          RunCommand("cat " + trace + " | " + CliPath() + " report --format json" + flags + " -");
      ASSERT_EQ(piped.exit_code, direct.exit_code) << name << flags << ": " << piped.err;
      std::string direct_path, piped_path;
      EXPECT_EQ(WithoutPath(piped.out, &piped_path), WithoutPath(direct.out, &direct_path))
          << name << flags;
      EXPECT_EQ(piped_path, "stdin");
      EXPECT_EQ(direct_path, trace);
    }
  }
}

// A trace.dat compressed whole, given as a file or piped in (`ssh board cat t.dat.xz |
// napiscope report -`), gives the plain file's report.
TEST(StreamInput, ACompressedTraceDatGivesThePlainFilesReport) {
  if (!::napiscope::testing::HaveProgram("xz")) GTEST_SKIP() << "xz is not installed";
  std::string dir = MakeTempDir();
  std::string trace = TestData("real/server16-softirq-napi.dat");
  ASSERT_EQ(RunCommand("xz -T1 -c " + trace + " > " + dir + "/t.dat.xz").exit_code, 0);
  auto plain = RunCommand(CliPath() + " report --format json --cpu 0-3 " + trace);
  auto file = RunCommand(CliPath() + " report --format json --cpu 0-3 " + dir + "/t.dat.xz");
  auto piped =
      RunCommand("cat " + dir + "/t.dat.xz | " + CliPath() + " report --format json --cpu 0-3 -");
  ASSERT_EQ(file.exit_code, plain.exit_code) << file.err;
  ASSERT_EQ(piped.exit_code, plain.exit_code) << piped.err;
  std::string plain_path, file_path, piped_path;
  nlohmann::json expected = WithoutPath(plain.out, &plain_path);
  EXPECT_EQ(WithoutPath(file.out, &file_path), expected);
  EXPECT_EQ(WithoutPath(piped.out, &piped_path), expected);
  EXPECT_EQ(file_path, dir + "/t.dat.xz");
  EXPECT_EQ(piped_path, "stdin");
}

// The shell's pipe reached through a link (/dev/stdin here; `<(ssh board cat trace)` gives
// /dev/fd/N) is read whole and named by the path given; every command takes one. A named pipe
// is still refused (it may never get a writer), and tracefs's trace_pipe (it never ends).
TEST(StreamInput, AShellPipeIsReadAndNamedByItsPath) {
  std::string trace = TestData("real/short-v6.dat");
  std::string dir = MakeTempDir();
  const std::string commands[] = {"report -q", "info", "check", "diff " + trace,
                                  "export --format perfetto -q -o " + dir + "/out.pftrace"};
  for (const std::string& command : commands) {
    auto result = RunCommand("cat " + trace + " | " + CliPath() + " " + command + " /dev/stdin");
    EXPECT_NE(result.exit_code, 1) << command << ": " << result.err;
    if (command == "report -q" || command == "info") {
      EXPECT_THAT(result.out, HasSubstr("trace:    /dev/stdin\n")) << command;
    }
  }
  EXPECT_GT(::napiscope::testing::ReadFile(dir + "/out.pftrace").size(), 100000u);
  std::string pipe = dir + "/pipe";
  ASSERT_EQ(mkfifo(pipe.c_str(), 0600), 0);
  auto named = RunCommand("timeout 20 " + CliPath() + " report " + pipe);
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_EQ(named.err, "napiscope: " + pipe +
                           ": is a named pipe, which may never get a writer: give it as "
                           "standard input (napiscope report - < PIPE)\n");
  // ... and read when it is standard input.
  auto as_input = RunCommand("cat " + trace + " > " + pipe + " & timeout 20 " + CliPath() +
                             " info - < " + pipe);
  EXPECT_EQ(as_input.exit_code, 0) << as_input.err;
  EXPECT_THAT(as_input.out, HasSubstr("trace:    stdin\n"));
  // A device or an empty path is named for what it is.
  auto device = RunCommand(CliPath() + " info /dev/null");
  EXPECT_EQ(device.err, "napiscope: /dev/null: is a device, not a trace file\n");
  auto empty = RunCommand(CliPath() + " info ''");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_EQ(empty.err, "napiscope: '': an empty path names no trace file\n");
  auto endless = RunCommand("timeout 20 " + CliPath() + " report /sys/kernel/tracing/trace_pipe");
  EXPECT_EQ(endless.exit_code, 1);
  EXPECT_THAT(endless.err,
              ::testing::AnyOf(HasSubstr("trace_pipe: never ends"), HasSubstr("No such file")))
      << endless.err;
}

// Nothing on standard input, or a terminal there: one line naming stdin, exit 1.
TEST(StreamInput, EmptyStandardInputIsOneLineNamingIt) {
  auto result = RunCommand(CliPath() + " report - < /dev/null");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "napiscope: stdin: empty file\n");
  auto check = RunCommand(CliPath() + " check -f junit - < /dev/null");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_THAT(check.out, HasSubstr("<testsuite name=\"stdin\""));
}

// A stream is judged by its first bytes before it is copied: endless zeros or random bytes
// were copied into a temporary file until the disk filled.
TEST(StreamInput, AnEndlessStreamOfNoTraceIsRefusedAtItsStart) {
  for (const char* source : {"/dev/zero", "/dev/urandom"}) {
    SCOPED_TRACE(source);
    auto result =
        RunCommand("cat " + std::string(source) + " | timeout 20 " + CliPath() + " info -");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err,
              "napiscope: stdin: not a trace: neither a trace.dat file nor ftrace, "
              "trace-cmd report or perf script text\n");
  }
  // A real trace behind the same first bytes still loads whole.
  auto whole = RunCommand("cat " + TestData("real/idle.dat") + " | " + CliPath() + " info -");
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_THAT(whole.out, HasSubstr("events:   780\n"));
}

// tracefs's `trace` reads as size 0: its text is read, not called an empty file.
TEST(StreamInput, TracefsTraceIsReadThoughItsSizeReadsZero) {
  const std::string trace = "/sys/kernel/tracing/trace";
  struct stat info {};
  if (stat(trace.c_str(), &info) != 0 || access(trace.c_str(), R_OK) != 0) {
    GTEST_SKIP() << trace << " is not readable here (tracefs not mounted, or not root)";
  }
  ASSERT_EQ(info.st_size, 0);
  auto result = RunCommand(CliPath() + " info " + trace);
  EXPECT_THAT(result.err, ::testing::Not(HasSubstr("empty file"))) << result.err;
  if (result.exit_code == 0) {
    EXPECT_THAT(result.out, HasSubstr("trace:    " + trace));
  } else {  // no events at the top level: the text has only its headers
    EXPECT_THAT(result.err, ::testing::StartsWith("napiscope: " + trace + ": no event line:"));
  }
}

}  // namespace
}  // namespace napiscope
