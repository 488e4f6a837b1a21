#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/info_report.h"
#include "napiscope/loader.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::SummarizeTrace;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;

class RealTraceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealTraceTest, CountsMatchTraceCmdReport) {
  const std::string name = GetParam();
  nlohmann::json expected = nlohmann::json::parse(ReadFile(TestData("real/" + name + ".expected.json")));
  TraceSummary summary;
  ASSERT_TRUE(SummarizeTrace(TestData("real/" + name + ".dat"), &summary).ok());
  std::map<std::string, int64_t> got;
  for (const EventNameCount& count : summary.counts) got[count.name] = count.total;
  std::map<std::string, int64_t> want = expected["event_counts"].get<std::map<std::string, int64_t>>();
  EXPECT_EQ(got, want);
  EXPECT_EQ(summary.events, expected["events"].get<int64_t>());

  std::multiset<std::pair<int, int64_t>> got_gaps, want_gaps;
  for (const MissedEventsMark& mark : summary.missed) got_gaps.emplace(mark.cpu, mark.count);
  for (const auto& gap : expected["missed_events"]) {
    want_gaps.emplace(gap["cpu"].get<int>(), gap["count"].get<int64_t>());
  }
  EXPECT_EQ(got_gaps, want_gaps);
  EXPECT_EQ(summary.meta.cpus, 2);
  EXPECT_GT(summary.last_ts_ns, summary.first_ts_ns);
  int64_t per_cpu_total = 0;
  for (int64_t n : summary.events_per_cpu) per_cpu_total += n;
  EXPECT_EQ(per_cpu_total, summary.events);
}

INSTANTIATE_TEST_SUITE_P(AllRealTraces, RealTraceTest,
                         ::testing::Values("idle", "short-v6", "veth-softirq-napi",
                                           "veth-threaded-napi"));

TEST(TraceDatLoader, ReportsFormatFacts) {
  TraceSummary v6, v7;
  ASSERT_TRUE(SummarizeTrace(TestData("real/short-v6.dat"), &v6).ok());
  ASSERT_TRUE(SummarizeTrace(TestData("real/idle.dat"), &v7).ok());
  EXPECT_EQ(v6.meta.file_version, 6);
  EXPECT_EQ(v6.meta.compression, "none");
  EXPECT_EQ(v7.meta.file_version, 7);
  EXPECT_THAT(v7.meta.compression, ::testing::StartsWith("zstd"));
  EXPECT_EQ(v7.meta.clock, "local");
  EXPECT_EQ(v6.meta.page_size, 4096);
  EXPECT_EQ(v6.meta.long_size, 8);
}

TEST(TraceDatLoader, ComputesSpanFromTimestamps) {
  TraceSummary summary;
  ASSERT_TRUE(SummarizeTrace(TestData("real/short-v6.dat"), &summary).ok());
  // trace-cmd report prints the first event at 1553.278955 and the last at 1553.386924.
  EXPECT_EQ(summary.first_ts_ns / 1000, 1553278955);
  EXPECT_EQ(summary.last_ts_ns / 1000, 1553386924);
}

TEST(TraceDatLoader, AnalysesSayWhatIsMissing) {
  TraceSummary summary;
  ASSERT_TRUE(SummarizeTrace(TestData("real/short-v6.dat"), &summary).ok());
  auto find = [&](const std::string& id) {
    for (const AnalysisAvailability& a : summary.analyses) {
      if (a.id == id) return a;
    }
    return AnalysisAvailability{};
  };
  // short-v6 recorded no irq_handler_entry at all, so IRQ-thread ping-pong cannot run.
  AnalysisAvailability pingpong = find("irq_thread_pingpong");
  EXPECT_FALSE(pingpong.available);
  EXPECT_THAT(pingpong.missing_required, ::testing::ElementsAre("irq:irq_handler_entry"));
  EXPECT_THAT(pingpong.note, ::testing::HasSubstr("irq:irq_handler_entry"));
  EXPECT_TRUE(find("softirq_latency").available);
  EXPECT_TRUE(find("napi").available);
}

// Everything in the info JSON that is not about the file's own format.
nlohmann::json ContentOnly(nlohmann::json info) {
  info.erase("trace");
  return info;
}

TEST(TraceDatLoader, ConvertedVersionsGiveIdenticalInfo) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  std::string dir = MakeTempDir();
  std::string v7 = dir + "/short-v7-zstd.dat";
  std::string v6_again = dir + "/veth-v6.dat";
  ASSERT_EQ(RunCommand("trace-cmd convert -i " + TestData("real/short-v6.dat") + " -o " + v7 +
                       " --file-version 7 --compression zstd")
                .exit_code,
            0);
  ASSERT_EQ(RunCommand("trace-cmd convert -i " + TestData("real/veth-softirq-napi.dat") + " -o " +
                       v6_again + " --file-version 6 --compression none")
                .exit_code,
            0);
  TraceSummary a, b, c, d;
  ASSERT_TRUE(SummarizeTrace(TestData("real/short-v6.dat"), &a).ok());
  ASSERT_TRUE(SummarizeTrace(v7, &b).ok());
  EXPECT_EQ(b.meta.file_version, 7);
  EXPECT_EQ(ContentOnly(InfoToJson(a)), ContentOnly(InfoToJson(b)));
  ASSERT_TRUE(SummarizeTrace(TestData("real/veth-softirq-napi.dat"), &c).ok());
  ASSERT_TRUE(SummarizeTrace(v6_again, &d).ok());
  EXPECT_EQ(d.meta.file_version, 6);
  EXPECT_EQ(ContentOnly(InfoToJson(c)), ContentOnly(InfoToJson(d)));
  std::filesystem::remove_all(dir);
}

class BrokenTraceTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  absl::Status Load(const std::string& content) {
    std::string path = dir_ + "/broken.dat";
    WriteFile(path, content);
    TraceSummary summary;
    absl::Status status = SummarizeTrace(path, &summary);
    if (!status.ok()) {
      EXPECT_THAT(std::string(status.message()), ::testing::StartsWith(path + ": "));
    }
    return status;
  }

  std::string dir_;
};

TEST_F(BrokenTraceTest, TruncatedCopiesAreErrors) {
  for (const char* name : {"short-v6.dat", "idle.dat", "veth-threaded-napi.dat"}) {
    std::string whole = ReadFile(TestData(std::string("real/") + name));
    ASSERT_FALSE(whole.empty());
    for (size_t cut : {size_t{5}, size_t{17}, size_t{100}, size_t{4096}, whole.size() / 3,
                       whole.size() / 2, whole.size() - 4096, whole.size() - 1}) {
      absl::Status status = Load(whole.substr(0, cut));
      EXPECT_FALSE(status.ok()) << name << " cut at " << cut << " loaded without error";
    }
  }
}

TEST_F(BrokenTraceTest, RandomBytesAreNotATrace) {
  std::mt19937 random(42);
  std::string noise(64 * 1024, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  absl::Status status = Load(noise);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("not a trace"));
}

TEST_F(BrokenTraceTest, RandomBytesAfterTheMagicAreAnError) {
  std::mt19937 random(7);
  std::string noise = std::string("\x17\x08\x44tracing6\0", 11);
  for (int i = 0; i < 100000; ++i) noise.push_back(static_cast<char>(random()));
  EXPECT_FALSE(Load(noise).ok());
}

TEST_F(BrokenTraceTest, UnsupportedVersionIsNamed) {
  absl::Status status = Load(std::string("\x17\x08\x44tracing9\0\0\x08", 13) + std::string(64, '\0'));
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("version '9'"));
}

TEST_F(BrokenTraceTest, EmptyFileIsAnError) {
  absl::Status status = Load("");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("empty file"));
}

// A file whose size reads 0 but holds data (/proc, tracefs's `trace`) is not called empty:
// the error says to copy it first (the command does that itself). tracefs's trace_pipe, which
// has nothing to read until an event comes, gets the same answer at once, not a wait.
TEST_F(BrokenTraceTest, ASizeZeroFileWithDataSaysToCopyIt) {
  TraceSummary summary;
  absl::Status status = SummarizeTrace("/proc/self/stat", &summary);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "/proc/self/stat: its size reads 0 but it holds data (tracefs, /proc): copy it to a "
            "file first (the napiscope command reads such files itself)");
  const char* trace_pipe = "/sys/kernel/tracing/trace_pipe";
  if (access(trace_pipe, R_OK) == 0) {
    status = SummarizeTrace(trace_pipe, &summary);
    EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("its size reads 0"));
  }
}

TEST_F(BrokenTraceTest, DirectoryAndMissingFileAreErrors) {
  TraceSummary summary;
  absl::Status status = SummarizeTrace(dir_, &summary);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("is a directory"));
  status = SummarizeTrace(dir_ + "/does-not-exist.dat", &summary);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("No such file"));
}

}  // namespace
}  // namespace napiscope
