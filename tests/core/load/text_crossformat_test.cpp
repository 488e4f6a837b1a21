// The same recording loaded from trace.dat and from `trace-cmd report` text must give the same
// events, field by field, except what the text form cannot print.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "load/text_flags.h"
#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using ::napiscope::tracegen::CollectingSink;
using ::napiscope::tracegen::DescribeEvent;
using ::napiscope::tracegen::DescribeOptions;

// One way of printing a trace.dat as text, and what that way loses.
struct ReportVariant {
  const char* name;
  const char* flags;        // trace-cmd report options besides -i
  DescribeOptions compare;  // masks for what the text does not carry
};

const ReportVariant kVariants[] = {
    // Default: sched plugin prints prev_state letters of bits 0-7 only, no flags column.
    {"plugin", "-t", {0x00, 0xff, true}},
    // -l adds the latency column; libtraceevent 1.7 shows only some common_flags bits.
    {"latency",
     "-t -l",
     {internal::RepresentableFlags(internal::FlagsDialect::kTraceCmd), 0xff, true}},
    // -N prints the kernel's own formats, prev_state with its "+" included.
    {"no_plugins", "-t -N", {0x00, 0xffff, true}},
};

void PrintTo(const ReportVariant& variant, std::ostream* os) { *os << variant.name; }

struct Loaded {
  TraceContext context;
  std::vector<Event> events;
  absl::Status status;
};

void Load(const std::string& path, Loaded* loaded) {
  CollectingSink sink;
  loaded->status = LoadTrace(path, loaded->context, sink);
  loaded->events = std::move(sink.events);
}

// Compares two event streams and reports the first difference with both events in full.
void ExpectSameEvents(const Loaded& want, const Loaded& got, const DescribeOptions& options) {
  size_t n = std::min(want.events.size(), got.events.size());
  for (size_t i = 0; i < n; ++i) {
    std::string a = DescribeEvent(want.events[i], want.context.strings, options);
    std::string b = DescribeEvent(got.events[i], got.context.strings, options);
    if (a != b) {
      ADD_FAILURE() << "event " << i << " differs\n  trace.dat: " << a << "\n  text:      " << b;
      return;
    }
  }
  EXPECT_EQ(want.events.size(), got.events.size());
}

class CrossFormatTest : public ::testing::TestWithParam<std::tuple<std::string, ReportVariant>> {};

TEST_P(CrossFormatTest, TextLoadsTheSameEventsAsTraceDat) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  const auto& [trace, variant] = GetParam();
  std::string dat = TestData("real/" + trace + ".dat");
  std::string dir = MakeTempDir();
  std::string text = dir + "/" + trace + ".txt";
  testing::CommandResult report =
      RunCommand(std::string("trace-cmd report ") + variant.flags + " -i " + dat);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  WriteFile(text, report.out);
  Loaded binary, textual;
  Load(dat, &binary);
  Load(text, &textual);
  ASSERT_TRUE(binary.status.ok()) << binary.status;
  ASSERT_TRUE(textual.status.ok()) << textual.status;
  EXPECT_EQ(textual.context.meta.format, TraceFormat::kTraceCmdText);
  EXPECT_EQ(textual.context.meta.skipped_lines, 0)
      << ::testing::PrintToString(textual.context.meta.warnings);
  EXPECT_EQ(textual.context.meta.cpus, binary.context.meta.cpus);
  ExpectSameEvents(binary, textual, variant.compare);

  ASSERT_EQ(textual.context.missed.size(), binary.context.missed.size());
  for (size_t i = 0; i < binary.context.missed.size(); ++i) {
    const MissedEventsMark& a = binary.context.missed[i];
    const MissedEventsMark& b = textual.context.missed[i];
    EXPECT_EQ(std::tie(a.cpu, a.ts_ns, a.last_before_ns, a.count),
              std::tie(b.cpu, b.ts_ns, b.last_before_ns, b.count))
        << "gap " << i;
  }
  std::filesystem::remove_all(dir);
}

std::string VariantTestName(
    const ::testing::TestParamInfo<std::tuple<std::string, ReportVariant>>& info) {
  std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(RealTraces, CrossFormatTest,
                         ::testing::Combine(::testing::Values("idle", "short-v6",
                                                              "veth-softirq-napi",
                                                              "veth-threaded-napi"),
                                            ::testing::ValuesIn(kVariants)),
                         VariantTestName);

// Text printed to the microsecond (trace-cmd report without -t, the kernel's trace file) says
// so, and its analyses match the trace.dat's to within that microsecond: each duration's two
// ends are cut to the microsecond, so a duration moves by less than 1000 ns, and so does every
// order statistic of a set of them.
TEST(CrossFormat, MicrosecondTextSaysSoAndItsLatenciesAreWithinAMicrosecond) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  std::string dat = TestData("real/veth-softirq-napi.dat");
  std::string dir = MakeTempDir();
  std::string text = dir + "/veth-softirq-napi-us.txt";
  testing::CommandResult report = RunCommand("trace-cmd report -i " + dat);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  WriteFile(text, report.out);
  Report from_dat, from_text;
  ASSERT_TRUE(AnalyzeTrace(dat, AnalysisOptions{}, &from_dat).ok());
  ASSERT_TRUE(AnalyzeTrace(text, AnalysisOptions{}, &from_text).ok());
  EXPECT_THAT(from_text.trace.meta.warnings,
              ::testing::Contains(::testing::HasSubstr("timestamps are printed to 1.0 us")));
  EXPECT_THAT(from_dat.trace.meta.warnings,
              ::testing::Not(::testing::Contains(::testing::HasSubstr("timestamps are printed"))));
  auto expect_within_a_microsecond = [](const DurationStats& a, const DurationStats& b) {
    EXPECT_EQ(a.count, b.count);
    for (auto field : {&DurationStats::min_ns, &DurationStats::p50_ns, &DurationStats::p99_ns,
                       &DurationStats::max_ns}) {
      EXPECT_LT(std::abs(a.*field - b.*field), 1000) << a.*field << " vs " << b.*field;
    }
  };
  ASSERT_EQ(from_dat.softirq_latency.size(), from_text.softirq_latency.size());
  ASSERT_FALSE(from_dat.softirq_latency.empty());
  for (size_t i = 0; i < from_dat.softirq_latency.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "CPU " << from_dat.softirq_latency[i].cpu << " vec "
                                      << from_dat.softirq_latency[i].vec);
    expect_within_a_microsecond(from_dat.softirq_latency[i].delay,
                                from_text.softirq_latency[i].delay);
  }
  ASSERT_EQ(from_dat.softirq_runtime.size(), from_text.softirq_runtime.size());
  for (size_t i = 0; i < from_dat.softirq_runtime.size(); ++i) {
    expect_within_a_microsecond(from_dat.softirq_runtime[i].run, from_text.softirq_runtime[i].run);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace napiscope
