// A trace.dat compressed whole (trace.dat.gz, .zst, .xz, as bug reports attach them) loads as
// the plain file does; archives and compressions napiscope does not read are named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "napiscope/loader.h"
#include "napiscope/trace_summary.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using testing::HaveProgram;
using testing::MakeTempDir;
using testing::RunCommand;
using testing::TestData;

// The per-name counts as name -> total, for comparing two summaries.
std::vector<std::pair<std::string, int64_t>> Totals(const TraceSummary& summary) {
  std::vector<std::pair<std::string, int64_t>> totals;
  for (const EventNameCount& count : summary.counts) totals.emplace_back(count.name, count.total);
  return totals;
}

// Copies `trace` into a fresh directory and compresses it with `tool` (gzip, zstd, xz), keeping
// the plain copy; returns the compressed file.
std::string Compressed(const std::string& trace, const std::string& tool,
                       const std::string& suffix) {
  std::string plain = MakeTempDir() + "/trace.dat";
  EXPECT_EQ(RunCommand("cp " + trace + " " + plain).exit_code, 0);
  CommandResult packed = RunCommand(tool + " -q -k " + plain);
  EXPECT_EQ(packed.exit_code, 0) << packed.err;
  return plain + suffix;
}

class CompressedTraceDat : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
 protected:
  void SetUp() override {
    if (!HaveProgram(GetParam().first)) GTEST_SKIP() << GetParam().first << " is not installed";
  }
  std::string Compress(const std::string& trace) {
    return Compressed(trace, GetParam().first, GetParam().second);
  }
};

TEST_P(CompressedTraceDat, LoadsTheSameEventsAsThePlainFile) {
  for (const char* name : {"real/short-v6.dat", "real/server16-softirq-napi.dat"}) {
    std::string packed = Compress(TestData(name));
    TraceFormat format;
    ASSERT_TRUE(DetectTraceFormat(packed, &format).ok());
    EXPECT_EQ(format, TraceFormat::kTraceDat);
    TraceSummary plain, unpacked;
    ASSERT_TRUE(testing::SummarizeTrace(TestData(name), &plain).ok());
    absl::Status status = testing::SummarizeTrace(packed, &unpacked);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_GT(plain.events, 1000) << name;
    EXPECT_EQ(unpacked.events, plain.events) << name;
    EXPECT_EQ(unpacked.events_per_cpu, plain.events_per_cpu) << name;
    EXPECT_EQ(unpacked.first_ts_ns, plain.first_ts_ns) << name;
    EXPECT_EQ(unpacked.last_ts_ns, plain.last_ts_ns) << name;
    EXPECT_EQ(Totals(unpacked), Totals(plain)) << name;
    EXPECT_EQ(unpacked.missed.size(), plain.missed.size()) << name;
    EXPECT_EQ(unpacked.tasks, plain.tasks) << name;
    EXPECT_EQ(unpacked.meta.path, packed);  // named as given, not as the temporary file
  }
}

// The decompressing is the first fifth of the progress; a cancel stops it.
TEST_P(CompressedTraceDat, ProgressRisesThroughTheDecompressingAndCancelStops) {
  std::string packed = Compress(TestData("real/server16-softirq-napi.dat"));
  std::vector<double> fractions;
  LoadOptions options;
  options.progress = [&](double fraction) { fractions.push_back(fraction); };
  TraceContext context;
  TraceSummaryBuilder sink;
  ASSERT_TRUE(LoadTrace(packed, context, sink, options).ok());
  ASSERT_GE(fractions.size(), 2u);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_LE(fractions.front(), 0.2);
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);

  std::atomic<bool> cancel{true};
  options.cancel = &cancel;
  TraceContext cancelled_context;
  TraceSummaryBuilder cancelled_sink;
  EXPECT_EQ(LoadTrace(packed, cancelled_context, cancelled_sink, options).code(),
            absl::StatusCode::kCancelled);
}

TEST_P(CompressedTraceDat, ACutOffCopyIsAnErrorSayingSo) {
  std::string packed = Compress(TestData("real/short-v6.dat"));
  std::string cut = packed + ".cut";
  std::string bytes = testing::ReadFile(packed);
  testing::WriteFile(cut, bytes.substr(0, bytes.size() / 2));
  TraceContext context;
  TraceSummaryBuilder sink;
  absl::Status status = LoadTrace(cut, context, sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(std::string(status.message()),
            cut + ": the " + GetParam().first +
                " stream ends early (a cut-off copy?): the trace.dat in it is incomplete");
}

INSTANTIATE_TEST_SUITE_P(Tools, CompressedTraceDat,
                         ::testing::Values(std::make_pair("gzip", ".gz"),
                                           std::make_pair("zstd", ".zst"),
                                           std::make_pair("xz", ".xz")),
                         [](const auto& param_info) {
                           return std::string(param_info.param.first);
                         });

// Nowhere to decompress to is an error naming the directory.
TEST(CompressedTraceDatPlace, AnUnusableTemporaryDirectoryIsNamed) {
  if (!HaveProgram("gzip")) GTEST_SKIP() << "gzip is not installed";
  std::string packed = Compressed(TestData("real/short-v6.dat"), "gzip", ".gz");
  const char* old = std::getenv("TMPDIR");
  std::string kept = old != nullptr ? old : "";
  setenv("TMPDIR", "/nonexistent-napiscope-dir", 1);
  TraceContext context;
  TraceSummaryBuilder sink;
  absl::Status status = LoadTrace(packed, context, sink);
  if (old != nullptr) {
    setenv("TMPDIR", kept.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_EQ(std::string(status.message()),
            packed +
                ": a trace.dat compressed with gzip: cannot decompress it into "
                "/nonexistent-napiscope-dir: No such file or directory");
}

// Packings napiscope does not read are named, where it said "not a trace".
TEST(CompressedTraceDatPlace, ArchivesAndOtherCompressionsAreNamed) {
  std::string dir = MakeTempDir();
  ASSERT_EQ(RunCommand("cp " + TestData("real/short-v6.dat") + " " + dir + "/t.dat").exit_code, 0);
  struct Packing {
    const char* tool;
    const char* command;
    const char* file;
  };
  for (const Packing& packing : {Packing{"bzip2", "bzip2 -k t.dat", "t.dat.bz2"},
                                 Packing{"tar", "tar cf t.tar t.dat", "t.tar"},
                                 Packing{"zip", "zip -q t.zip t.dat", "t.zip"}}) {
    if (!HaveProgram(packing.tool)) continue;
    ASSERT_EQ(RunCommand("cd " + dir + " && " + packing.command).exit_code, 0) << packing.tool;
    std::string path = dir + "/" + packing.file;
    TraceContext context;
    TraceSummaryBuilder sink;
    absl::Status status = LoadTrace(path, context, sink);
    EXPECT_EQ(std::string(status.message()),
              path + ": a " + packing.tool +
                  " file: take the trace out of it first (napiscope reads trace.dat and text "
                  "plain or compressed with gzip, zstd or xz)");
  }
}

}  // namespace
}  // namespace napiscope
