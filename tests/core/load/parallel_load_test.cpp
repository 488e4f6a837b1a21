// napiscope's own parser (formats, saved cmdlines), page reader (plain and zstd) and parallel
// decoding deliver exactly what libtracecmd's record API does: same events in the same
// order, same strings, gaps, tasks, event formats, warnings and report.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include <absl/strings/str_join.h>
#include <absl/strings/str_replace.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "napiscope/report_render.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"
#include "tracegen/synthetic.h"

namespace napiscope {
namespace {

struct Loaded {
  absl::Status status;
  TraceContext context;
  std::vector<Event> events;
};

Loaded Load(const std::string& path, const LoadOptions& options) {
  Loaded loaded;
  tracegen::CollectingSink sink;
  loaded.status = LoadTrace(path, loaded.context, sink, options);
  loaded.events = std::move(sink.events);
  return loaded;
}

LoadOptions Reference() {
  LoadOptions options;
  options.libtracecmd_records = true;
  return options;
}

LoadOptions Threads(int threads) {
  LoadOptions options;
  options.threads = threads;
  return options;
}

// The names of sorted `want` missing from sorted `got`, comma separated.
std::string Missing(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  std::vector<std::string> missing;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  return absl::StrJoin(missing, ", ");
}

void ExpectSameLoad(const Loaded& want, const Loaded& got) {
  ASSERT_TRUE(want.status.ok()) << want.status;
  ASSERT_TRUE(got.status.ok()) << got.status;
  ASSERT_EQ(got.events.size(), want.events.size());
  for (size_t i = 0; i < want.events.size(); ++i) {
    ASSERT_TRUE(SameEventContent(got.events[i], want.events[i]))
        << "event " << i << ": got " << tracegen::DescribeEvent(got.events[i], got.context.strings)
        << " want " << tracegen::DescribeEvent(want.events[i], want.context.strings);
  }
  ASSERT_EQ(got.context.strings.size(), want.context.strings.size());
  for (StringId id = 0; id < want.context.strings.size(); ++id) {
    EXPECT_EQ(got.context.strings.Get(id), want.context.strings.Get(id)) << "string " << id;
  }
  ASSERT_EQ(got.context.missed.size(), want.context.missed.size());
  for (size_t i = 0; i < want.context.missed.size(); ++i) {
    const MissedEventsMark& a = got.context.missed[i];
    const MissedEventsMark& b = want.context.missed[i];
    EXPECT_EQ(a.cpu, b.cpu);
    EXPECT_EQ(a.ts_ns, b.ts_ns);
    EXPECT_EQ(a.last_before_ns, b.last_before_ns);
    EXPECT_EQ(a.count, b.count);
  }
  EXPECT_EQ(got.context.meta.warnings, want.context.meta.warnings);
  // libtracecmd makes up an ftrace:blktrace format of its own (trace-blk-hack.c).
  std::vector<std::string> want_formats = want.context.meta.event_formats;
  std::erase(want_formats, "ftrace:blktrace");
  EXPECT_EQ(Missing(got.context.meta.event_formats, want_formats), "");
  EXPECT_EQ(Missing(want_formats, got.context.meta.event_formats), "");
  EXPECT_EQ(got.context.meta.cpus, want.context.meta.cpus);
  EXPECT_EQ(got.context.meta.skipped_records, want.context.meta.skipped_records);
  ASSERT_EQ(got.context.tasks.size(), want.context.tasks.size());
  for (const auto& [pid, task] : want.context.tasks.tasks()) {
    const TaskRecord* other = got.context.tasks.Find(pid);
    ASSERT_NE(other, nullptr) << "pid " << pid;
    ASSERT_EQ(other->comms.size(), task.comms.size()) << "pid " << pid;
    for (size_t i = 0; i < task.comms.size(); ++i) {
      EXPECT_EQ(other->comms[i].since_ns, task.comms[i].since_ns);
      EXPECT_EQ(other->comms[i].comm, task.comms[i].comm);
    }
    EXPECT_EQ(other->last_prio, task.last_prio);
  }
}

std::string ReportJson(const std::string& path, const LoadOptions& load) {
  AnalysisOptions options;
  options.load = load;
  Report report;
  absl::Status status = AnalyzeTrace(path, options, &report);
  EXPECT_TRUE(status.ok()) << status;
  return ReportToJson(report).dump(1);
}

void ExpectSameEverywhere(const std::string& path) {
  Loaded want = Load(path, Reference());
  ASSERT_FALSE(want.events.empty());
  for (int threads : {1, 2, 3, 5}) {
    for (bool workers_merge : {true, false}) {
      SCOPED_TRACE(::testing::Message()
                   << "threads " << threads << ", decoding threads merge " << workers_merge);
      LoadOptions options = Threads(threads);
      options.decoding_threads_merge = workers_merge;
      ExpectSameLoad(want, Load(path, options));
    }
  }
  std::string report = ReportJson(path, Reference());
  EXPECT_EQ(ReportJson(path, Threads(1)), report);
  EXPECT_EQ(ReportJson(path, Threads(2)), report);
}

class ParallelLoadOnFile : public ::testing::TestWithParam<std::string> {};

TEST_P(ParallelLoadOnFile, EveryReaderDeliversTheSameEvents) {
  ExpectSameEverywhere(testing::TestData(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    RealAndScenarios, ParallelLoadOnFile,
    ::testing::Values("real/idle.dat", "real/short-v6.dat", "real/veth-softirq-napi.dat",
                      "real/veth-threaded-napi.dat", "scenarios/irq_threads_bouncing.dat",
                      "scenarios/ksoftirqd_blocked.dat", "scenarios/missed_events_gap.dat",
                      "scenarios/napi_budget.dat", "scenarios/softirq_contexts.dat"),
    [](const ::testing::TestParamInfo<std::string>& param) {
      return testing::TestDataName(param.param);
    });

// 16 CPUs of many chunks each, lost events half way and idle gaps: the ring of chunks per
// CPU wraps many times and workers own several CPUs.
TEST(ParallelLoad, SyntheticSixteenCpusMatchesLibtracecmd) {
  std::string path = testing::MakeTempDir() + "/synthetic.dat";
  tracegen::SyntheticOptions options;
  options.events = 400'000;
  options.cpus = 16;
  options.idle_gap_every = 700;
  ASSERT_TRUE(tracegen::WriteSyntheticTrace(path, options).ok());
  ExpectSameEverywhere(path);
}

// trace-cmd's version 7 table lists only the CPUs with data: the others are CPUs without
// events (trace-cmd report: cpus=2), not a false claim, and no reader may ask libtracecmd for
// them. CPU1 of the scenario has none; version 7 was read as 1 CPU, with a warning.
TEST(ParallelLoad, AVersion7FileCountsItsCpusWithoutData) {
  if (!testing::HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  const std::string v6 = testing::TestData("scenarios/ksoftirqd_blocked.dat");
  const std::string dir = testing::MakeTempDir();
  for (const char* compression : {"none", "zstd"}) {
    SCOPED_TRACE(compression);
    const std::string v7 = dir + "/v7-" + compression + ".dat";
    ASSERT_EQ(testing::RunCommand("trace-cmd convert -i " + v6 + " -o " + v7 +
                                  " --file-version 7 --compression " + compression)
                  .exit_code,
              0);
    Loaded want = Load(v6, Threads(1));
    ASSERT_EQ(want.context.meta.cpus, 2);
    for (const LoadOptions& options : {Reference(), Threads(1), Threads(2)}) {
      Loaded got = Load(v7, options);
      ExpectSameLoad(want, got);
      EXPECT_EQ(got.context.meta.file_version, 7);
      EXPECT_EQ(got.context.meta.cpus, 2);
      EXPECT_TRUE(got.context.meta.warnings.empty()) << got.context.meta.warnings.front();
    }
    EXPECT_EQ(absl::StrReplaceAll(ReportJson(v7, Threads(2)), {{v7, "TRACE"}}),
              absl::StrReplaceAll(ReportJson(v6, Threads(2)), {{v6, "TRACE"}}));
  }
}

TEST(ParallelLoad, CancelStopsTheWorkers) {
  std::string path = testing::MakeTempDir() + "/synthetic.dat";
  tracegen::SyntheticOptions synthetic;
  synthetic.events = 300'000;
  synthetic.cpus = 8;
  ASSERT_TRUE(tracegen::WriteSyntheticTrace(path, synthetic).ok());
  std::atomic<bool> cancel{true};
  LoadOptions options = Threads(2);
  options.cancel = &cancel;
  Loaded loaded = Load(path, options);
  EXPECT_EQ(loaded.status.code(), absl::StatusCode::kCancelled) << loaded.status;
  EXPECT_EQ(loaded.events.size(), size_t{1} << 16);
}

}  // namespace
}  // namespace napiscope
