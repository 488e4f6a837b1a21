// The trace.dat v6 file writer that `record` and the generator share: layout and errors.
#include <sys/stat.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/trace_summary.h"
#include "napiscope/tracedat_writer.h"
#include "support/test_support.h"
#include "tracegen/format_catalog.h"

namespace napiscope {
namespace {

using ::testing::HasSubstr;

TraceDatHeader EmptyHeader(int cpus) {
  const tracegen::FormatCatalog& catalog = tracegen::FormatCatalog::Embedded();
  TraceDatHeader header;
  header.cpus = cpus;
  header.header_page = catalog.header_page();
  header.header_event = catalog.header_event();
  const tracegen::EventLayout* sched_switch = catalog.Find("sched_switch");
  header.systems.push_back({"sched", {std::string(sched_switch->format_text)}});
  header.cmdlines = {{1, "init"}, {42, "worker"}};
  header.uname = "Linux test 6.18.0 #1 x86_64";
  header.trace_clock = "local global counter uptime perf [mono] mono_raw boot";
  return header;
}

TEST(TraceDatFileWriter, HeaderOnlyFileLoadsWithItsMeta) {
  std::string path = testing::MakeTempDir() + "/empty.dat";
  TraceDatFileWriter writer;
  ASSERT_TRUE(writer.Open(path, EmptyHeader(3)).ok());
  ASSERT_TRUE(writer.Close().ok());
  EXPECT_EQ(writer.bytes() % 4096, 0u);
  TraceSummary summary;
  ASSERT_TRUE(testing::SummarizeTrace(path, &summary).ok());
  EXPECT_EQ(summary.meta.file_version, 6);
  EXPECT_EQ(summary.meta.cpus, 3);
  EXPECT_EQ(summary.meta.kernel_release, "6.18.0");
  EXPECT_EQ(summary.meta.clock, "mono");  // the bracketed one of the trace_clock text
  EXPECT_EQ(summary.events, 0);
  EXPECT_THAT(summary.meta.event_formats, ::testing::ElementsAre("sched:sched_switch"));
}

// napiscope record lists the events it enabled: one enabled without events never happened, so
// the analysis that needs it runs (and finds nothing) where it would say "not recorded".
TEST(TraceDatFileWriter, EnabledEventsWithoutEventsCountAsRecorded) {
  auto availability_of_napi = [](const TraceSummary& summary) {
    for (const AnalysisAvailability& a : summary.analyses) {
      if (a.id == "napi") return a;
    }
    ADD_FAILURE() << "no napi analysis";
    return AnalysisAvailability{};
  };
  std::string dir = testing::MakeTempDir();
  TraceDatHeader header = EmptyHeader(1);
  header.extra_options.push_back(
      {kTraceDatOptionEnabledEvents,
       "sched:sched_switch\nnapi:napi_poll\n\nno-colon\n:x\nsched:\nsched:sched_switch"});
  TraceDatFileWriter writer;
  ASSERT_TRUE(writer.Open(dir + "/enabled.dat", header).ok());
  ASSERT_TRUE(writer.Close().ok());
  TraceSummary summary;
  ASSERT_TRUE(testing::SummarizeTrace(dir + "/enabled.dat", &summary).ok());
  EXPECT_THAT(summary.meta.enabled_events,
              ::testing::ElementsAre("napi:napi_poll", "sched:sched_switch"));
  EXPECT_TRUE(availability_of_napi(summary).available);

  // The same file without the list (trace-cmd's): napi:napi_poll was not recorded.
  TraceDatFileWriter plain;
  ASSERT_TRUE(plain.Open(dir + "/plain.dat", EmptyHeader(1)).ok());
  ASSERT_TRUE(plain.Close().ok());
  ASSERT_TRUE(testing::SummarizeTrace(dir + "/plain.dat", &summary).ok());
  EXPECT_TRUE(summary.meta.enabled_events.empty());
  AnalysisAvailability napi = availability_of_napi(summary);
  EXPECT_FALSE(napi.available);
  EXPECT_THAT(napi.missing_required, ::testing::ElementsAre("napi:napi_poll"));
}

// `record` renames its file over the output and `live --save-on-fail` removes a failed save:
// both ask first that the output be absent or a regular file (`record -o /dev/null` as root
// replaced the device with the recording).
TEST(TraceDatFileWriter, OnlyAnAbsentOrRegularFileIsATraceDatOutput) {
  std::string dir = testing::MakeTempDir();
  std::string pipe = dir + "/pipe";
  ASSERT_EQ(mkfifo(pipe.c_str(), 0600), 0);
  for (const std::string& path : {pipe, dir, std::string("/dev/null")}) {
    absl::Status status = RequireFileOutput(path);
    EXPECT_FALSE(status.ok()) << path;
    EXPECT_THAT(std::string(status.message()), HasSubstr(path + ": not a regular file"));
  }
  testing::WriteFile(dir + "/old.dat", "x");
  EXPECT_TRUE(RequireFileOutput(dir + "/old.dat").ok());
  EXPECT_TRUE(RequireFileOutput(dir + "/new.dat").ok());
}

TEST(TraceDatFileWriter, RefusesPartialPagesAndCpusOutOfOrder) {
  std::string path = testing::MakeTempDir() + "/bad.dat";
  TraceDatFileWriter writer;
  ASSERT_TRUE(writer.Open(path, EmptyHeader(2)).ok());
  EXPECT_FALSE(writer.WritePages(std::string(4096, '\0')).ok());  // before BeginCpu
  ASSERT_TRUE(writer.BeginCpu(1).ok());
  EXPECT_THAT(std::string(writer.WritePages(std::string(100, '\0')).message()),
              HasSubstr("not a whole number of 4096-byte pages"));
  EXPECT_FALSE(writer.BeginCpu(0).ok());
  EXPECT_FALSE(writer.BeginCpu(2).ok());
}

TEST(TraceDatFileWriter, FullDiskIsAnErrorNamingTheFile) {
  TraceDatFileWriter writer;
  ASSERT_TRUE(writer.Open("/dev/full", EmptyHeader(1)).ok());
  ASSERT_TRUE(writer.BeginCpu(0).ok());
  absl::Status status = writer.WritePages(std::string(16 << 20, '\0'));  // past the buffer
  if (status.ok()) status = writer.Close();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "/dev/full: No space left on device");
}

// A recording cut short by a full disk says so in the file (napiscope's own option, which
// trace-cmd skips), and every reader of it gets a warning; a whole one says nothing.
TEST(TraceDatFileWriter, ACutShortRecordingIsMarkedAndReadWithAWarning) {
  std::string dir = testing::MakeTempDir();
  for (uint64_t pages_not_kept : {uint64_t{0}, uint64_t{7}}) {
    SCOPED_TRACE(pages_not_kept);
    std::string path = dir + "/cut" + std::to_string(pages_not_kept) + ".dat";
    TraceDatHeader header = EmptyHeader(2);
    header.reserve_pages_not_kept = true;
    TraceDatFileWriter writer;
    ASSERT_TRUE(writer.Open(path, header).ok());
    EXPECT_EQ(writer.bytes(), TraceDatFileWriter::HeaderBytes(header));
    writer.SetPagesNotKept(pages_not_kept);
    ASSERT_TRUE(writer.Close().ok());
    TraceSummary summary;
    absl::Status loaded = testing::SummarizeTrace(path, &summary);
    ASSERT_TRUE(loaded.ok()) << loaded;
    EXPECT_EQ(summary.meta.cpus, 2);
    auto cut_short = ::testing::Contains(HasSubstr("the recording was cut short"));
    if (pages_not_kept == 0) {
      EXPECT_THAT(summary.meta.warnings, ::testing::Not(cut_short));
    } else {
      EXPECT_THAT(summary.meta.warnings,
                  ::testing::Contains(HasSubstr(
                      "cut short (its disk was full): 7 captured ring-buffer pages are not in")));
    }
    if (testing::HaveProgram("trace-cmd")) {
      auto report = testing::RunCommand("trace-cmd report " + path);
      EXPECT_EQ(report.exit_code, 0) << report.err;
    }
  }
}

}  // namespace
}  // namespace napiscope
