// --buffer on the commands that read a trace: a trace.dat recorded with trace-cmd record -B keeps
// each tracefs instance's events in a buffer of its own.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "tracegen/event_describe.h"
#include "tracegen/scenario.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::testing::HasSubstr;

// An empty top buffer beside instance "net" (3 NET_RX raises on CPU 1) and instance "sched"
// (4 on CPU 3).
std::string TwoInstances() {
  tracegen::Scenario net(4), sched(4);
  for (int i = 0; i < 3; ++i) net.SoftirqRaise(1, 10'000'000'000 + i * 1'000, kNetRx);
  for (int i = 0; i < 4; ++i) sched.SoftirqRaise(3, 10'000'000'000 + i * 2'000, kNetRx);
  std::string path = MakeTempDir() + "/instances.dat";
  absl::Status status =
      tracegen::WriteTraceDatBuffers(path, 4, nullptr, {{"net", &net}, {"sched", &sched}});
  EXPECT_TRUE(status.ok()) << status;
  return path;
}

TEST(BufferOption, WithoutItTheCommandsNameTheInstancesToChooseFrom) {
  std::string path = TwoInstances();
  const std::string why =
      ": the top buffer holds no events, and buffers net, sched do: choose one with --buffer NAME";
  for (const char* command : {"report", "info", "export --format perfetto -o -"}) {
    auto result = RunCommand(CliPath() + " " + command + " " + path);
    EXPECT_EQ(result.exit_code, 1) << command;
    EXPECT_EQ(result.err, "napiscope: " + path + why + "\n") << command;
  }
  auto check = RunCommand(CliPath() + " check " + path);  // check says it on its own report
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_THAT(check.out, HasSubstr("ERROR " + path + why + "\n"));
}

// The export says what the report says of the buffer it read (a warning the export used to
// keep to itself).
TEST(BufferOption, TheExportWarnsOfTheInstanceItReadInstead) {
  tracegen::Scenario net(4);
  net.SoftirqRaise(1, 10'000'000'000, kNetRx);
  std::string path = MakeTempDir() + "/net.dat";
  ASSERT_TRUE(tracegen::WriteTraceDatBuffers(path, 4, nullptr, {{"net", &net}}).ok());
  auto exported =
      RunCommand(CliPath() + " export --format perfetto -o " + MakeTempDir() + "/out " + path);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_THAT(exported.err, HasSubstr("napiscope: warning: " + path +
                                      ": the top buffer holds no events: read buffer 'net' "
                                      "instead\n"));
}

TEST(BufferOption, ReadsTheNamedInstance) {
  std::string path = TwoInstances();
  auto report = RunCommand(CliPath() + " report --format json --buffer sched " + path);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  nlohmann::json json = nlohmann::json::parse(report.out);
  EXPECT_EQ(json["trace"]["events"], 4);
  EXPECT_EQ(json["trace"]["first_ts_ns"], 10'000'000'000);
  EXPECT_EQ(json["trace"]["last_ts_ns"], 10'000'006'000);

  // The window's offsets count from the named instance's first event.
  auto windowed =
      RunCommand(CliPath() + " report --format json --buffer net --from +1500ns " + path);
  ASSERT_EQ(windowed.exit_code, 0) << windowed.err;
  EXPECT_EQ(nlohmann::json::parse(windowed.out)["window"]["from_ns"], 10'000'001'500);

  auto info = RunCommand(CliPath() + " info --buffer net " + path);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("events:   3\n"));
  EXPECT_THAT(info.out,
              HasSubstr("format:   trace.dat v6, compression none, buffer instance 'net'\n"));
  EXPECT_THAT(info.out, HasSubstr("other buffers (not loaded): sched\n"));

  auto missing = RunCommand(CliPath() + " report --buffer nope " + path);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "napiscope: " + path +
                             ": no buffer 'nope' in the file (it has the top buffer, 'net', "
                             "'sched')\n");
}

}  // namespace
}  // namespace napiscope
