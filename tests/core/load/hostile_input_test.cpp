// The hostile-input suite (docs/robustness.md): broken, cut, flipped and absurd files end in a
// one-line error naming the file and the problem, or in a report whose header says what was
// skipped. Never a crash (the sanitizer build runs this too), never a hang (ctest timeout).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/contexts.h"
#include "napiscope/json_text.h"
#include "napiscope/report_render.h"
#include "fuzz/tracedat_mutator.h"
#include "support/hostile_files.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::HostileFile;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Outcome {
  absl::Status status;
  std::string header;  ///< the text report up to its findings, when the load succeeded
};

Outcome Analyze(const std::string& path) {
  Outcome outcome;
  Report report;
  outcome.status = AnalyzeTrace(path, AnalysisOptions{}, &report);
  if (outcome.status.ok()) {
    std::string text = ReportToText(report);
    // What the trace is and lacks: the header, findings and the lost/missing block.
    size_t block = text.find("\nlost and missing events:");
    outcome.header = text.substr(0, block == std::string::npos ? text.find("\nfindings")
                                                                : text.find("\n\n", block + 1));
  }
  return outcome;
}

// An error must be one line that starts with the path.
void ExpectOneLineError(const std::string& path, const absl::Status& status) {
  std::string message(status.message());
  EXPECT_THAT(message, StartsWith(path + ": "));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(HostileInputTest, EveryNamedCaseKeepsItsPromise) {
  for (const HostileFile& file : testing::MakeHostileFiles(dir_)) {
    SCOPED_TRACE(file.name);
    Outcome outcome = Analyze(file.path);
    if (file.usable) {
      ASSERT_TRUE(outcome.status.ok()) << outcome.status;
      EXPECT_THAT(outcome.header, HasSubstr(file.expect));
    } else {
      ASSERT_FALSE(outcome.status.ok()) << "loaded without error";
      ExpectOneLineError(file.path, outcome.status);
      EXPECT_THAT(std::string(outcome.status.message()), HasSubstr(file.expect));
    }
  }
}

// Records the file holds as napiscope reads them, and the loader's warnings.
struct Counted {
  absl::Status status;
  size_t events = 0;
  std::vector<std::string> warnings;
};

Counted CountEvents(const std::string& path) {
  Counted counted;
  TraceContext context;
  tracegen::CollectingSink sink;
  counted.status = LoadTrace(path, context, sink, LoadOptions{});
  for (const Event& event : sink.events) counted.events += event.kind != EventKind::kMissedEvents;
  counted.warnings = context.meta.warnings;
  return counted;
}

// Issue 64: a CPU table that disagrees with itself (counts that differ, a CPU count too small,
// a table of zeros, a CPU listed twice, a second table, a page size the kernel's page layout
// contradicts) is an error, or reads every event the file holds with a warning, or says with
// a warning that events are missing: never fewer events without a word. Before, each of
// these read 0, 2 or 11 of the 13 events, exit 0, no warning.
TEST_F(HostileInputTest, ACpuTableThatDisagreesWithItselfLosesNoEventSilently) {
  const size_t whole = CountEvents(TestData("scenarios/missed_events_gap.dat")).events;
  ASSERT_EQ(whole, 13u);
  const size_t whole_zstd = CountEvents(TestData("real/idle.dat")).events;
  ASSERT_EQ(whole_zstd, 780u);  // as trace-cmd report reads it
  struct Expected {
    std::string name;
    size_t events;  // 0: an error
  } cases[] = {
      {"v6 CPU count 0 in the file header, CPUCOUNT 2", whole},
      {"v6 CPU count 2 in the file header, CPUCOUNT 0", whole},
      {"v6 CPU count 0 and CPUCOUNT 0 (a trace of 0 CPUs)", 0},
      {"v6 CPU table of zeros (a killed writer)", 0},
      {"header page size 8192, header_page 4096", 0},
      {"v7 BUFFER option with CPU count 0", 0},
      {"v7 BUFFER option counting 1 of its 2 CPUs", 11},  // CPU 1's 2 said to be missing
      {"v7 CPU table listing CPU 0 twice", 0},
      {"a second BUFFER option for the top buffer", 0},
      {"v7 zstd BUFFER option counting 1 of its 2 CPUs", 595},  // CPU 1's 185 said missing
  };
  std::vector<HostileFile> files = testing::MakeHostileFiles(dir_);
  for (const Expected& expected : cases) {
    SCOPED_TRACE(expected.name);
    auto file = std::find_if(files.begin(), files.end(),
                             [&](const HostileFile& f) { return f.name == expected.name; });
    ASSERT_NE(file, files.end()) << "the case is missing";
    Counted counted = CountEvents(file->path);
    if (expected.events == 0) {
      EXPECT_FALSE(counted.status.ok()) << "read " << counted.events << " events";
      continue;
    }
    ASSERT_TRUE(counted.status.ok()) << counted.status;
    EXPECT_EQ(counted.events, expected.events);
    // Fewer events than the file holds, or a table read otherwise than it says, is said.
    EXPECT_THAT(counted.warnings,
                ::testing::Contains(::testing::AnyOf(HasSubstr("their events are missing"),
                                                     HasSubstr("the CPU table is read as"))));
  }
}

// Implausible jumps in time are lost time, never the length of a wait: no finding of a usable
// hostile case spans more than the jump threshold (a day).
TEST_F(HostileInputTest, NoFindingIsBuiltOnAnImplausibleJumpInTime) {
  constexpr TimestampNs kDayNs = int64_t{86400} * 1'000'000'000;
  int usable = 0;
  for (const HostileFile& file : testing::MakeHostileFiles(dir_)) {
    if (!file.usable) continue;
    SCOPED_TRACE(file.name);
    Report report;
    ASSERT_TRUE(AnalyzeTrace(file.path, AnalysisOptions{}, &report).ok());
    ++usable;
    for (const Finding& finding : report.findings) {
      EXPECT_LT(finding.end_ns - finding.start_ns, kDayNs) << finding.summary;
    }
    for (const WakeLatencyRow& row : report.rt_wake_latency) {
      EXPECT_LT(row.latency.max_ns, kDayNs) << row.comm;
    }
  }
  EXPECT_GE(usable, 3);
}

// The 10-year jump in text: the wakeup before it and the switch-in after it are not paired
// into a wait, and the jump is lost time on both CPUs.
TEST_F(HostileInputTest, ATextJumpIsLostTimeOnEveryCpu) {
  for (const HostileFile& file : testing::MakeHostileFiles(dir_)) {
    if (file.name != "text with a jump of 10 years in time") continue;
    TraceContext context;
    tracegen::CollectingSink sink;
    ASSERT_TRUE(LoadTrace(file.path, context, sink, LoadOptions{}).ok());
    ASSERT_EQ(context.missed.size(), 2u);  // CPU 0 (after the jump) and CPU 1 (before it)
    constexpr TimestampNs kWakeNs = 1000'000'000'000;
    constexpr TimestampNs kSwitchNs = 315361000'000'000'000;
    for (const MissedEventsMark& mark : context.missed) {
      EXPECT_EQ(mark.count, -1);
      EXPECT_EQ(mark.last_before_ns, kWakeNs);
      EXPECT_EQ(mark.ts_ns, kSwitchNs);
    }
    EXPECT_EQ(context.missed[0].cpu, 0);
    EXPECT_EQ(context.missed[1].cpu, 1);
    int gaps_delivered = 0;
    for (const Event& event : sink.events) gaps_delivered += event.kind == EventKind::kMissedEvents;
    EXPECT_EQ(gaps_delivered, 2);
    return;
  }
  FAIL() << "the case is missing";
}

// Cuts `whole` at each offset, largest first, truncating one copy in place.
void ExpectEveryCutFails(const std::string& path, const std::string& whole,
                         std::vector<uint64_t> cuts) {
  std::sort(cuts.rbegin(), cuts.rend());
  WriteFile(path, whole);
  for (uint64_t cut : cuts) {
    SCOPED_TRACE(::testing::Message() << "cut at byte " << cut << " of " << whole.size());
    ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(cut)), 0);
    Outcome outcome = Analyze(path);
    ASSERT_FALSE(outcome.status.ok()) << "a cut trace loaded without error";
    ExpectOneLineError(path, outcome.status);
  }
}

class CutTraceTest : public HostileInputTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(CutTraceTest, EveryPageBoundaryAndRandomOffsetIsAnError) {
  std::string whole = ReadFile(GetParam());
  ASSERT_GT(whole.size(), 4096u);
  std::vector<uint64_t> cuts;
  for (uint64_t cut = 0; cut < whole.size(); cut += 4096) cuts.push_back(cut);
  std::mt19937_64 random(whole.size());
  for (int i = 0; i < 64; ++i) cuts.push_back(random() % whole.size());
  ExpectEveryCutFails(dir_ + "/cut.dat", whole, cuts);
}

INSTANTIATE_TEST_SUITE_P(
    Traces, CutTraceTest,
    ::testing::Values(TestData("scenarios/missed_events_gap.dat"), TestData("real/idle.dat"),
                      std::string(NAPISCOPE_FUZZ_DIR) +
                          "/corpus/trace_dat/ksoftirqd_blocked-v7-zstd.dat"));

// Flips every bit of bytes [begin, end) one at a time; each copy loads or fails in one line.
void FlipEachBit(const std::string& path, const std::string& whole, size_t begin, size_t end) {
  for (size_t byte = begin; byte < std::min(end, whole.size()); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      SCOPED_TRACE(::testing::Message() << "bit " << bit << " of byte " << byte);
      std::string flipped = whole;
      flipped[byte] = static_cast<char>(flipped[byte] ^ (1 << bit));
      WriteFile(path, flipped);
      Outcome outcome = Analyze(path);
      if (!outcome.status.ok()) ExpectOneLineError(path, outcome.status);
    }
  }
}

TEST_F(HostileInputTest, BitFlipsInTheFileHeader) {
  // Magic, version, endianness, long size, page size and the header_page block.
  FlipEachBit(dir_ + "/v6.dat", testing::SmallTraceDat(), 0, 64);
  // v7: the compression name and the first options section's header.
  FlipEachBit(dir_ + "/v7.dat",
              ReadFile(std::string(NAPISCOPE_FUZZ_DIR) +
                       "/corpus/trace_dat/ksoftirqd_blocked-v7-zstd.dat"),
              0, 64);
}

TEST_F(HostileInputTest, BitFlipsInEveryPageHeader) {
  std::string whole = testing::SmallTraceDat();
  std::vector<testing::CpuPages> table = testing::FlyrecordTable(whole);
  ASSERT_FALSE(table.empty());
  int pages = 0;
  for (const testing::CpuPages& cpu : table) {
    for (uint64_t page = cpu.offset; page < cpu.offset + cpu.size; page += 4096) {
      FlipEachBit(dir_ + "/page.dat", whole, page, page + 16);  // timestamp, commit and flags
      ++pages;
    }
  }
  EXPECT_GE(pages, 3);
}

// The fuzzer's structure-aware mutator with fixed seeds: one hostile value in one field a
// reader trusts (CPU counts, extents, page and record headers, chunk headers, options links,
// format numbers), in v6, v7 and v7 zstd files. Each loads or fails in one line.
TEST_F(HostileInputTest, StructureAwareMutationsLoadOrFailInOneLine) {
  const std::string seeds[] = {
      TestData("scenarios/missed_events_gap.dat"),
      std::string(NAPISCOPE_FUZZ_DIR) + "/corpus/trace_dat/missed_events_gap-v7.dat",
      std::string(NAPISCOPE_FUZZ_DIR) + "/corpus/trace_dat/ksoftirqd_blocked-v7-zstd.dat",
      std::string(NAPISCOPE_FUZZ_DIR) + "/corpus/trace_dat/missed_events_gap-v6-time-shift.dat"};
  std::string path = dir_ + "/mutated.dat";
  int loaded = 0, refused = 0;
  for (const std::string& seed : seeds) {
    const std::string whole = ReadFile(seed);
    ASSERT_GT(fuzz::FindTraceDatFields(whole).size(), 10u) << seed;
    for (uint64_t round = 0; round < 150; ++round) {
      std::string mutated = whole;
      ASSERT_TRUE(fuzz::MutateTraceDatField(&mutated, round));
      SCOPED_TRACE(::testing::Message() << seed << " mutation " << round);
      WriteFile(path, mutated);
      Outcome outcome = Analyze(path);
      if (outcome.status.ok()) {
        ++loaded;
      } else {
        ++refused;
        ExpectOneLineError(path, outcome.status);
      }
    }
  }
  // Both outcomes occur: the mutations reach past the first check.
  EXPECT_GT(loaded, 0);
  EXPECT_GT(refused, 0);
}

// The mutator reaches the TIME_SHIFT option: it finds the option's counts and samples in a
// file that has one, and inserts one (plausible or hostile) into a v6 file that has none.
TEST_F(HostileInputTest, TheMutatorFindsAndInsertsTimeShiftOptions) {
  const std::string shifted = ReadFile(std::string(NAPISCOPE_FUZZ_DIR) +
                                       "/corpus/trace_dat/missed_events_gap-v6-time-shift.dat");
  const size_t option = shifted.find(std::string("options  \0\x0c\0", 12));
  ASSERT_NE(option, std::string::npos) << "the corpus file's first option is a TIME_SHIFT";
  std::vector<size_t> offsets;
  for (const fuzz::TraceDatField& field : fuzz::FindTraceDatFields(shifted)) {
    offsets.push_back(field.offset);
  }
  const size_t cpu_count = option + 10 + 6 + 12;  // after the option's id, size, id and flags
  EXPECT_THAT(offsets, ::testing::Contains(cpu_count));
  EXPECT_THAT(offsets, ::testing::Contains(cpu_count + 4));      // CPU 0's sample count
  EXPECT_THAT(offsets, ::testing::Contains(cpu_count + 4 + 4));  // its first sample's time

  const std::string trace = testing::SmallTraceDat();
  std::string path = dir_ + "/time-shift.dat";
  int loaded = 0, refused_by_time_shift = 0;
  for (uint64_t seed = 0; seed < 120; ++seed) {
    std::string mutated = trace;
    ASSERT_TRUE(fuzz::InsertTimeShiftOption(&mutated, seed));
    ASSERT_NE(mutated, trace);
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    WriteFile(path, mutated);
    Outcome outcome = Analyze(path);
    if (outcome.status.ok()) {
      ++loaded;
    } else {
      ExpectOneLineError(path, outcome.status);
      if (std::string(outcome.status.message()).find("TIME_SHIFT") != std::string::npos) {
        ++refused_by_time_shift;
      }
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(refused_by_time_shift, 0);
}

TEST_F(HostileInputTest, AnUnreadableFileIsAnError) {
  std::string path = dir_ + "/unreadable.dat";
  WriteFile(path, testing::SmallTraceDat());
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  if (access(path.c_str(), R_OK) == 0) {
    GTEST_SKIP() << "running as root: mode 000 does not stop reading (tests/cli runs this case "
                    "as an unprivileged user)";
  }
  Outcome outcome = Analyze(path);
  ASSERT_FALSE(outcome.status.ok());
  ExpectOneLineError(path, outcome.status);
  EXPECT_THAT(std::string(outcome.status.message()), HasSubstr("Permission denied"));
}

// Records the comm of every task segment the tracker hands out.
class SegmentNames : public ContextListener {
 public:
  void OnSegment(const CpuSegment& segment) override {
    if (segment.frame.kind == ContextKind::kTask) names.emplace_back(segment.start_ns, segment.frame.name);
  }
  std::vector<std::pair<TimestampNs, StringId>> names;
};

TEST(HostileEvents, PidReuseWithAnotherCommNamesEachRunByItsTime) {
  // pid 1500 runs as iperf3, exits, and the pid comes back as netperf.
  TraceContext context;
  context.meta.cpus = 1;
  StringId swapper = context.strings.Intern("swapper/0");
  StringId iperf = context.strings.Intern("iperf3");
  StringId netperf = context.strings.Intern("netperf");
  StringId sched_switch = context.strings.Intern("sched_switch");
  auto add_switch = [&](std::vector<Event>& events, TimestampNs ts, int32_t prev, StringId prev_comm,
                        int32_t next, StringId next_comm) {
    Event& e = events.emplace_back();
    e.ts_ns = ts;
    e.pid = prev;
    e.kind = EventKind::kSchedSwitch;
    e.name = sched_switch;  // the trace recorded sched_switch: CPU time is analysed
    e.sched_switch = {prev, next, 120, 120, prev == 0 ? uint16_t{0} : uint16_t{kStateDead},
                      prev_comm, next_comm};
  };
  std::vector<Event> events;
  add_switch(events, 1'000, 0, swapper, 1500, iperf);
  add_switch(events, 2'000, 1500, iperf, 0, swapper);
  add_switch(events, 3'000, 0, swapper, 1500, netperf);
  add_switch(events, 4'000, 1500, netperf, 0, swapper);
  add_switch(events, 5'000, 0, swapper, 0, swapper);

  ContextTracker tracker;
  SegmentNames names;
  tracker.AddListener(&names);
  AnalysisSession pipeline(AnalysisOptions{});
  FanoutSink sinks;
  sinks.Add(&tracker);
  sinks.Add(&pipeline);
  sinks.OnBegin(context);
  for (const Event& event : events) {
    context.tasks.ObserveEvent(event);
    sinks.OnEvent(event);
  }
  sinks.OnEnd();
  EXPECT_EQ(context.tasks.CommAt(1500, 1'500), iperf);
  EXPECT_EQ(context.tasks.CommAt(1500, 3'500), netperf);
  std::vector<std::pair<TimestampNs, StringId>> runs_of_1500;
  for (const auto& [start_ns, name] : names.names) {
    if (name == iperf || name == netperf) runs_of_1500.emplace_back(start_ns, name);
  }
  EXPECT_THAT(runs_of_1500, ::testing::ElementsAre(std::pair<TimestampNs, StringId>{1'000, iperf},
                                                   std::pair<TimestampNs, StringId>{3'000, netperf}));
  Report report = pipeline.Finish(context);
  ASSERT_EQ(report.cpu_time.size(), 1u);
  EXPECT_EQ(report.cpu_time[0].other_task_ns, 2'000);
  EXPECT_EQ(report.cpu_time[0].idle_ns, 2'000);
}

TEST(HostileEvents, InvalidUtf8InATaskNameBecomesAReplacementCharacterInJson) {
  // prctl(PR_SET_NAME) takes any bytes; nlohmann::json would throw on them.
  nlohmann::json value = {{"comm", std::string("ab\xff")}};
  EXPECT_EQ(JsonText(value), "{\"comm\":\"ab\xef\xbf\xbd\"}");
}

}  // namespace
}  // namespace napiscope
