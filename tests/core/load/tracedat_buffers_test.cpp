// A trace.dat with buffer instances (trace-cmd record -B NAME: a tracefs instance's events in a
// buffer of their own beside the top buffer) is read one buffer at a time: the top buffer by
// default, the instance LoadOptions::buffer names, or the only instance with events when the top
// buffer has none; checked against libtracecmd's instance handles and `trace-cmd report`.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"
#include "tracegen/scenario.h"

namespace napiscope {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr TimestampNs T = 10'000'000'000;
constexpr int kCpus = 4;

// `count` NET_RX raises on `cpu`, a microsecond apart from `start`.
tracegen::Scenario Raises(int cpu, int count, TimestampNs start = T) {
  tracegen::Scenario s(kCpus);
  for (int i = 0; i < count; ++i) s.SoftirqRaise(cpu, start + i * 1'000, kNetRx);
  return s;
}

struct Loaded {
  absl::Status status;
  TraceContext context;
  std::vector<Event> events;
  // (cpu, time) of each event, in order.
  std::vector<std::pair<int, TimestampNs>> Places() const {
    std::vector<std::pair<int, TimestampNs>> places;
    for (const Event& event : events) places.emplace_back(event.cpu, event.ts_ns);
    return places;
  }
};

Loaded Load(const std::string& path, const std::string& buffer, bool through_libtracecmd = false) {
  Loaded loaded;
  tracegen::CollectingSink sink;
  LoadOptions options;
  options.buffer = buffer;
  options.libtracecmd_records = through_libtracecmd;
  loaded.status = LoadTrace(path, loaded.context, sink, options);
  loaded.events = std::move(sink.events);
  return loaded;
}

class TraceDatBuffersTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Loads `buffer` with napiscope's reader and with libtracecmd: the same events.
  Loaded LoadBoth(const std::string& path, const std::string& buffer) {
    Loaded own = Load(path, buffer);
    Loaded reference = Load(path, buffer, true);
    EXPECT_TRUE(own.status.ok()) << own.status;
    EXPECT_TRUE(reference.status.ok()) << reference.status;
    EXPECT_EQ(own.Places(), reference.Places());
    return own;
  }

  // Writes `name` in the test's directory (see tracegen::WriteTraceDatBuffers).
  std::string Write(
      const std::string& name, const tracegen::Scenario* top,
      const std::vector<std::pair<std::string, const tracegen::Scenario*>>& instances) {
    std::string path = dir_ + "/" + name;
    absl::Status status = tracegen::WriteTraceDatBuffers(path, kCpus, top, instances);
    EXPECT_TRUE(status.ok()) << status;
    return path;
  }

  std::string dir_;
};

TEST_F(TraceDatBuffersTest, TheTopBufferIsReadUnlessAnInstanceIsNamed) {
  tracegen::Scenario top = Raises(0, 2);
  tracegen::Scenario net = Raises(1, 3, T + 500);
  std::string path = Write("two.dat", &top, {{"net", &net}});

  Loaded by_default = LoadBoth(path, "");
  EXPECT_THAT(by_default.Places(), ElementsAre(std::pair(0, T), std::pair(0, T + 1'000)));
  EXPECT_EQ(by_default.context.meta.buffer, "");
  EXPECT_THAT(by_default.context.meta.buffer_instances, ElementsAre("net"));
  EXPECT_THAT(by_default.context.meta.warnings, IsEmpty());

  Loaded instance = LoadBoth(path, "net");
  EXPECT_THAT(instance.Places(),
              ElementsAre(std::pair(1, T + 500), std::pair(1, T + 1'500), std::pair(1, T + 2'500)));
  EXPECT_EQ(instance.context.meta.buffer, "net");
  EXPECT_THAT(instance.context.meta.buffer_instances, IsEmpty());
  EXPECT_THAT(instance.context.meta.warnings, IsEmpty());
}

TEST_F(TraceDatBuffersTest, AnEmptyTopBufferReadsTheOnlyInstanceWithEventsAndSaysSo) {
  tracegen::Scenario net = Raises(2, 3);
  std::string path = Write("only.dat", nullptr, {{"idle", nullptr}, {"net", &net}});
  Loaded loaded = LoadBoth(path, "");
  EXPECT_THAT(loaded.Places(),
              ElementsAre(std::pair(2, T), std::pair(2, T + 1'000), std::pair(2, T + 2'000)));
  EXPECT_EQ(loaded.context.meta.buffer, "net");
  EXPECT_THAT(loaded.context.meta.buffer_instances, ElementsAre("idle"));
  EXPECT_THAT(loaded.context.meta.warnings,
              ElementsAre("the top buffer holds no events: read buffer 'net' instead"));
}

TEST_F(TraceDatBuffersTest, AnEmptyTopBufferBesideTwoInstancesWithEventsAsksWhichOne) {
  tracegen::Scenario net = Raises(1, 3);
  tracegen::Scenario sched = Raises(3, 4);
  std::string path = Write("many.dat", nullptr, {{"net", &net}, {"sched", &sched}});
  Loaded loaded = Load(path, "");
  EXPECT_EQ(loaded.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(loaded.status.message(),
            path +
                ": the top buffer holds no events, and buffers net, sched do: choose one "
                "with --buffer NAME");
  EXPECT_THAT(loaded.events, IsEmpty());
  // The error carries the choice as data, for a GUI to offer it.
  EXPECT_THAT(BufferChoices(loaded.status), ElementsAre("net", "sched"));
  EXPECT_EQ(LoadBoth(path, "sched").events.size(), 4u);
}

TEST_F(TraceDatBuffersTest, ABufferTheFileLacksIsAnErrorNamingItsBuffers) {
  tracegen::Scenario top = Raises(0, 1);
  std::string path = Write("named.dat", &top, {{"net", nullptr}});
  Loaded loaded = Load(path, "nope");
  EXPECT_EQ(loaded.status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(loaded.status.message(),
            path + ": no buffer 'nope' in the file (it has the top buffer, 'net')");
  EXPECT_THAT(BufferChoices(loaded.status), ElementsAre("net"));

  // A text trace without buffer names has only its top buffer.
  std::string text = dir_ + "/trace.txt";
  std::ofstream(text) << "# tracer: nop\n          <idle>-0     [000] d.h1.   100.000001: "
                         "softirq_raise: vec=3 [action=NET_RX]\n";
  loaded = Load(text, "net");
  EXPECT_EQ(loaded.status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(loaded.status.message(),
            text + ": no buffer 'net' in the file (it has the top buffer)");
  EXPECT_THAT(BufferChoices(loaded.status), IsEmpty());  // nothing to choose from
  EXPECT_THAT(BufferChoices(Load(dir_ + "/absent.dat", "").status), IsEmpty());
}

// Points the BUFFER option of instance "net" in `path` at `offset`.
void MoveNetTable(const std::string& path, uint64_t offset) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The BUFFER option: id 3, size 12, its 8-byte offset, then "net\0".
  size_t option = bytes.find(std::string("\x03\0\x0c\0\0\0", 6));
  ASSERT_NE(option, std::string::npos);
  ASSERT_EQ(bytes.substr(option + 14, 4), std::string("net\0", 4));
  for (int i = 0; i < 8; ++i) bytes[option + 6 + i] = static_cast<char>(offset >> (8 * i));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// An instance whose table does not read is the error when it is the buffer to read; beside a
// top buffer with events (a recording cut short before trace-cmd wrote the instance leaves
// its offset 0) the top buffer is read, and the instance named as not read.
TEST_F(TraceDatBuffersTest, AnInstanceTableThatDoesNotReadFailsOnlyThatBuffer) {
  tracegen::Scenario net = Raises(1, 2);
  std::string only = Write("bad.dat", nullptr, {{"net", &net}});
  MoveNetTable(only, uint64_t{1} << 44);
  Loaded loaded = Load(only, "");
  EXPECT_EQ(loaded.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(loaded.status.message(),
            only +
                ": truncated trace.dat: buffer 'net': its CPU table at byte 17592186044416 "
                "runs past the end of the file");

  tracegen::Scenario top = Raises(0, 3);
  std::string beside = Write("cut.dat", &top, {{"net", &net}});
  MoveNetTable(beside, 0);
  loaded = LoadBoth(beside, "");
  EXPECT_EQ(loaded.events.size(), 3u);
  EXPECT_THAT(loaded.context.meta.warnings,
              ElementsAre("corrupt trace.dat header: buffer 'net': no flyrecord label at byte 0; "
                          "that buffer is not read"));
  loaded = Load(beside, "net");
  EXPECT_EQ(loaded.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(loaded.status.message()), HasSubstr("no flyrecord label at byte 0"));
}

// trace-cmd convert writes the same buffers as a v7 file (the BUFFER options hold the CPU tables),
// compressed or not: each buffer reads as from the v6 file.
TEST_F(TraceDatBuffersTest, AVersion7FileReadsEachBufferAsVersion6) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  tracegen::Scenario top = Raises(0, 2);
  tracegen::Scenario net = Raises(1, 3, T + 500);
  std::string v6 = Write("v6.dat", &top, {{"net", &net}});
  for (const std::string compression : {"zstd", "none"}) {
    std::string v7 = dir_ + "/v7-" + compression + ".dat";
    testing::CommandResult convert =
        RunCommand("trace-cmd convert --file-version 7 --compression " + compression + " -i " + v6 +
                   " -o " + v7);
    ASSERT_EQ(convert.exit_code, 0) << convert.err;
    for (const std::string buffer : {"", "net"}) {
      Loaded from_v7 = LoadBoth(v7, buffer);
      EXPECT_EQ(from_v7.context.meta.file_version, 7);
      EXPECT_EQ(from_v7.Places(), Load(v6, buffer).Places()) << compression << " " << buffer;
      EXPECT_EQ(from_v7.context.meta.buffer, buffer);
    }
  }
}

// `trace-cmd report` of such a file prints every buffer, an instance's lines after its name
// ("net:    ksoftirqd/1-16   [001] ..."): napiscope reads that text's buffers as it reads the
// file's, and the names of the tasks without the buffer's.
TEST_F(TraceDatBuffersTest, TraceCmdReportTextOfTheBuffersReadsAsTheFile) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  tracegen::Scenario top = Raises(0, 2);
  tracegen::Scenario net = Raises(1, 3, T + 500);
  net.Task(16, "ksoftirqd/1").Running(1, 16);
  std::string path = Write("both.dat", &top, {{"net", &net}});
  testing::CommandResult report = RunCommand("trace-cmd report -t -i " + path);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  ASSERT_THAT(report.out, HasSubstr("\nnet:"));
  std::string text = dir_ + "/both.txt";
  std::ofstream(text) << report.out;

  for (const std::string buffer : {"", "net"}) {
    Loaded from_file = LoadBoth(path, buffer);
    Loaded from_text = Load(text, buffer);
    ASSERT_TRUE(from_text.status.ok()) << from_text.status;
    EXPECT_EQ(from_text.Places(), from_file.Places()) << report.out;
    EXPECT_EQ(from_text.context.meta.buffer, buffer);
    EXPECT_THAT(from_text.context.meta.buffer_instances,
                buffer.empty() ? std::vector<std::string>{"net"} : std::vector<std::string>{});
  }
  Loaded instance = Load(text, "net");
  ASSERT_FALSE(instance.events.empty());
  EXPECT_EQ(instance.events[0].pid, 16);
  EXPECT_EQ(instance.context.strings.Get(instance.context.tasks.CommOf(16)), "ksoftirqd/1")
      << report.out;
}

// A buffer's lost events print after its name too, and the event after them then goes without
// it ("net: CPU:1 [17 EVENTS DROPPED]" then "   <idle>-0  [001] ..."): that line read as the
// top buffer's, the lost-events line as not understood, and a text of one instance gave one
// event of the top buffer.
TEST_F(TraceDatBuffersTest, TheLostEventsOfAnInstanceInTraceCmdReportTextAreItsOwn) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  tracegen::Scenario top = Raises(0, 3);
  top.Missed(0, T + 1'500, 5);
  tracegen::Scenario net = Raises(1, 4, T + 500);
  net.Missed(1, T + 2'000, 17);
  for (const bool with_top : {true, false}) {
    std::string name = with_top ? "both" : "net-only";
    std::string path = Write(name + ".dat", with_top ? &top : nullptr, {{"net", &net}});
    testing::CommandResult report = RunCommand("trace-cmd report -t -i " + path);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    ASSERT_THAT(report.out, HasSubstr("\nnet: CPU:1 [17 EVENTS DROPPED]\n"));
    std::string text = dir_ + "/" + name + ".txt";
    std::ofstream(text) << report.out;
    for (const std::string buffer : {"", "net"}) {
      if (!with_top && buffer.empty()) continue;
      Loaded from_file = LoadBoth(path, buffer);
      Loaded from_text = Load(text, buffer);
      ASSERT_TRUE(from_text.status.ok()) << from_text.status;
      EXPECT_EQ(from_text.Places(), from_file.Places()) << name << " " << buffer;
      for (const char* kWrong : {"not understood", "lost-events line"}) {
        EXPECT_THAT(from_text.context.meta.warnings,
                    ::testing::Not(::testing::Contains(HasSubstr(kWrong))));
      }
      std::vector<std::pair<int, int64_t>> gaps;
      for (const Event& event : from_text.events) {
        if (event.kind == EventKind::kMissedEvents)
          gaps.emplace_back(event.cpu, event.missed.count);
      }
      EXPECT_THAT(gaps, buffer.empty() ? ElementsAre(std::pair<int, int64_t>{0, 5})
                                       : ElementsAre(std::pair<int, int64_t>{1, 17}))
          << name << " " << buffer << "\n"
          << report.out;
    }
  }
}

}  // namespace
}  // namespace napiscope
