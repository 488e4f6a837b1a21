// The scenario generator: what it writes, libtracecmd and napiscope read back exactly.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "load/text_flags.h"
#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"
#include "tracegen/ftrace_text_writer.h"
#include "tracegen/scenario.h"
#include "tracegen/scenario_json.h"
#include "tracegen/synthetic.h"

namespace napiscope::tracegen {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::WriteFile;
using ::testing::HasSubstr;

constexpr TimestampNs T = 10'000'000'000;

// Every event kind, strings past the small-record limit, gaps beyond 27 bits of ns, a CPU
// filling several pages, lost events with and without a count, and a CPU with no events.
std::unique_ptr<Scenario> EdgeCaseScenario() {
  auto s = std::make_unique<Scenario>(4);
  s->Task(100, "iperf3").Task(101, "kworker/u8:3-events_unbound").Task(102, "Web Content");
  s->Task(181, "irq/354-4848400", KernelPrioOfRt(50)).Task(15, "ksoftirqd/0");
  s->Running(0, 100).Running(1, 101);
  s->Switch(0, T, 100, "R+", 181);
  s->Waking(0, T + 1'000, 102, 2).Flags(kIrqsOff | kNeedResched | kPreemptResched);
  s->Wakeup(0, T + 1'100, 102, 2);
  s->WakeupNew(0, T + 1'200, 15, 0);
  s->Migrate(0, T + 1'300, 102, 1, 2);
  s->PiSetprio(0, T + 1'400, 100, 49);
  s->Fork(0, T + 1'500, 181, 102);
  s->Exit(0, T + 1'600, 15);
  s->IrqEntry(0, T + 2'000, 354, std::string(120, 'x'));  // a record beyond 112 bytes
  s->SoftirqRaise(0, T + 2'100, kNetRx);
  s->Vector(0, T + 2'200, "reschedule_entry", 253);
  s->Vector(0, T + 2'300, "reschedule_exit", 253);
  s->IrqExit(0, T + 2'400, 354, 2);
  s->SoftirqEntry(0, T + 2'500, kNetRx);
  s->NapiPoll(0, T + 2'600, 0xffff888104835800ull, "a-very-long-device-name", 64, 64);
  s->NetifReceiveSkb(0, T + 2'700, "eth0", 1514);
  s->NetifRx(0, T + 2'800, "eth0", 60);
  s->NetDevXmit(0, T + 2'900, "eth0", 66, -16);
  s->SoftirqExit(0, T + 3'000, kNetRx);
  s->Other(0, T + 3'100, "sched_wake_idle_without_ipi").Pid(7).Flags(kNmi | kBhOff);
  s->Switch(0, T + 500'000'000, 181, "D|W", 100);  // 0.5 s: past 27 bits of delta
  s->Switch(0, T + 100'000'000'000, 100, "S", 0);  // 100 s later
  for (int i = 0; i < 3000; ++i) s->NetDevXmit(1, T + i * 1'000, "eth1", 1000 + i);
  s->Missed(1, T + 1'500'500, 77);
  s->Missed(2, T + 10);
  s->SoftirqRaise(2, T + 20, kTimer);
  s->SoftirqRaise(2, T + 30, kRcu);
  return s;
}

struct Loaded {
  absl::Status status;
  TraceContext context;
  std::vector<Event> events;
};

Loaded Load(const std::string& path) {
  Loaded loaded;
  CollectingSink sink;
  loaded.status = LoadTrace(path, loaded.context, sink);
  loaded.events = std::move(sink.events);
  return loaded;
}

std::vector<std::string> Describe(const std::vector<Event>& events, const StringTable& strings,
                                  const DescribeOptions& options = {}) {
  std::vector<std::string> lines;
  for (const Event& event : events) lines.push_back(DescribeEvent(event, strings, options));
  return lines;
}

class TracegenTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TracegenTest, LoaderReadsBackExactlyWhatWasWritten) {
  std::unique_ptr<Scenario> s = EdgeCaseScenario();
  std::vector<Event> want;
  ASSERT_TRUE(s->Resolve(&want).ok());
  std::string path = dir_ + "/edge.dat";
  TraceDatWriterStats stats;
  ASSERT_TRUE(s->WriteTraceDat(path, &stats).ok());
  EXPECT_GE(stats.pages, 10);  // 3000 records of 40 bytes need 30 pages on CPU1 alone
  EXPECT_EQ(stats.time_extends, 2);
  EXPECT_EQ(stats.missed_marks, 2);

  Loaded got = Load(path);
  ASSERT_TRUE(got.status.ok()) << got.status;
  EXPECT_EQ(got.context.meta.file_version, 6);
  EXPECT_EQ(got.context.meta.cpus, 4);
  EXPECT_EQ(got.context.meta.skipped_records, 0);
  EXPECT_EQ(Describe(got.events, got.context.strings), Describe(want, s->strings()));
  ASSERT_EQ(got.context.missed.size(), 2u);
  EXPECT_EQ(got.context.missed[0].cpu, 2);
  EXPECT_EQ(got.context.missed[0].count, -1);
  EXPECT_EQ(got.context.missed[1].cpu, 1);
  EXPECT_EQ(got.context.missed[1].count, 77);
  EXPECT_EQ(got.context.missed[1].ts_ns, T + 1'501'000);
  EXPECT_EQ(got.context.missed[1].last_before_ns, T + 1'500'000);
  // Saved cmdlines name tasks that never appear in a sched event.
  EXPECT_EQ(got.context.strings.Get(got.context.tasks.CommOf(101)), "kworker/u8:3-events_unbound");
}

TEST_F(TracegenTest, TraceCmdReadsItWithoutComplaintAndAgrees) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  std::unique_ptr<Scenario> s = EdgeCaseScenario();
  std::vector<Event> want;
  ASSERT_TRUE(s->Resolve(&want).ok());
  std::string path = dir_ + "/edge.dat";
  ASSERT_TRUE(s->WriteTraceDat(path).ok());
  testing::CommandResult report = RunCommand("trace-cmd report -t -l -i " + path);
  ASSERT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  std::string text = dir_ + "/edge.txt";
  WriteFile(text, report.out);
  Loaded got = Load(text);
  ASSERT_TRUE(got.status.ok()) << got.status;
  EXPECT_EQ(got.context.meta.skipped_lines, 0);
  DescribeOptions lossy{internal::RepresentableFlags(internal::FlagsDialect::kTraceCmd), 0xff,
                        true};
  EXPECT_EQ(Describe(got.events, got.context.strings, lossy), Describe(want, s->strings(), lossy));
}

TEST_F(TracegenTest, KernelTextOfTheEventsLoadsBackExactly) {
  std::unique_ptr<Scenario> s = EdgeCaseScenario();
  std::vector<Event> want;
  ASSERT_TRUE(s->Resolve(&want).ok());
  CommLookup comm_of = [&](int32_t pid) { return s->CommOf(pid); };
  DescribeOptions exact{0xff, 0xffff, true};
  DescribeOptions no_flags{0x00, 0xffff, true};
  struct Case {
    const char* name;
    FtraceTextStyle style;
    DescribeOptions compare;
  } cases[] = {{"flags", {true, true, false, true}, exact},
               {"tgid", {true, true, true, true}, exact},
               {"no_flags", {true, false, false, true}, no_flags},
               {"no_header", {false, true, true, true}, exact}};
  for (const Case& c : cases) {
    std::string path = dir_ + "/" + c.name + ".txt";
    WriteFile(path, FtraceText(want, s->strings(), comm_of, s->cpus(), c.style));
    Loaded got = Load(path);
    ASSERT_TRUE(got.status.ok()) << c.name << ": " << got.status;
    EXPECT_EQ(got.context.meta.skipped_lines, 0) << c.name;
    EXPECT_EQ(got.context.meta.format, TraceFormat::kFtraceText) << c.name;
    EXPECT_EQ(Describe(got.events, got.context.strings, c.compare),
              Describe(want, s->strings(), c.compare))
        << c.name;
  }
}

TEST_F(TracegenTest, ManyCpusWithMostOfThemEmpty) {
  Scenario s(64);
  s.Task(100, "iperf3");
  for (int cpu : {0, 31, 63}) {
    s.SoftirqRaise(cpu, T + cpu, kNetRx);
    s.SoftirqEntry(cpu, T + 1'000 + cpu, kNetRx);
  }
  std::vector<Event> want;
  ASSERT_TRUE(s.Resolve(&want).ok());
  std::string path = dir_ + "/many.dat";
  ASSERT_TRUE(s.WriteTraceDat(path).ok());
  Loaded got = Load(path);
  ASSERT_TRUE(got.status.ok()) << got.status;
  EXPECT_EQ(got.context.meta.cpus, 64);
  EXPECT_EQ(Describe(got.events, got.context.strings), Describe(want, s.strings()));
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  testing::CommandResult report = RunCommand("trace-cmd report -i " + path);
  ASSERT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  EXPECT_THAT(report.out, ::testing::StartsWith("cpus=64\n"));
  EXPECT_EQ(std::count(report.out.begin(), report.out.end(), '\n'), 1 + 6);
}

TEST_F(TracegenTest, JsonDescribesTheSameScenarioAsTheBuilder) {
  Scenario built(2);
  built.Task(181, "irq/354-4848400", 49).Task(100, "iperf3").Running(0, 100);
  built.IrqEntry(0, 1'000, 354, "4848400.ethernet");
  built.Waking(0, 1'100, 181, 1);
  built.IrqExit(0, 1'200, 354, 2);
  built.Switch(1, 5'000, 0, "R", 181);
  built.SoftirqRaise(1, 6'000, kNetRx).Flags(kBhOff);
  built.Missed(1, 7'000, 5);
  built.Vector(1, 8'000, "local_timer_entry", 236).Pid(181);
  std::unique_ptr<Scenario> parsed;
  ASSERT_TRUE(ScenarioFromJson(nlohmann::json::parse(R"({
    "cpus": 2,
    "tasks": [{"pid": 181, "comm": "irq/354-4848400", "prio": 49},
              {"pid": 100, "comm": "iperf3", "running_on": 0}],
    "events": [
      {"ts": 1000, "cpu": 0, "event": "irq_handler_entry", "irq": 354, "name": "4848400.ethernet"},
      {"ts": 1100, "cpu": 0, "event": "sched_waking", "pid": 181, "target_cpu": 1},
      {"ts": 1200, "cpu": 0, "event": "irq_handler_exit", "irq": 354, "ret": 2},
      {"ts": 5000, "cpu": 1, "event": "sched_switch", "prev_pid": 0, "prev_state": "R",
       "next_pid": 181},
      {"ts": 6000, "cpu": 1, "event": "softirq_raise", "vec": 3, "common_flags": "0x80"},
      {"ts": 7000, "cpu": 1, "event": "missed", "count": 5},
      {"ts": 8000, "cpu": 1, "event": "local_timer_entry", "vector": 236, "common_pid": 181}
    ]})"),
                               &parsed)
                  .ok());
  std::vector<Event> want, got;
  ASSERT_TRUE(built.Resolve(&want).ok());
  ASSERT_TRUE(parsed->Resolve(&got).ok());
  EXPECT_EQ(Describe(got, parsed->strings()), Describe(want, built.strings()));

  absl::Status status = ScenarioFromJson(nlohmann::json::parse(R"({"cpus": 1, "events": [
          {"ts": 1, "cpu": 0, "event": "softirq_raise", "vec": 1},
          {"ts": 2, "cpu": 0, "event": "softirq_entry"}]})"),
                                         &parsed);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("event 1: needs \"vec\""));
}

TEST_F(TracegenTest, ContradictionsAreErrors) {
  Scenario s(2);
  s.Task(100, "iperf3");
  s.Switch(0, 1'000, 100, "S", 0);  // pid 100 is not running on CPU0
  std::vector<Event> events;
  absl::Status status = s.Resolve(&events);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("CPU 0 at 1000 ns: sched_switch from pid 100 but pid 0 is running"));

  Scenario gap(1);
  gap.SoftirqRaise(0, 1'000, kNetRx);
  gap.Missed(0, 2'000);
  EXPECT_THAT(std::string(gap.Resolve(&events).message()), HasSubstr("after its last event"));

  Scenario unknown(1);
  unknown.Other(0, 1'000, "no_such_event");
  EXPECT_THAT(std::string(unknown.WriteTraceDat(dir_ + "/x.dat").message()),
              HasSubstr("no format for event 'no_such_event'"));

  Scenario unregistered(1);
  unregistered.Waking(0, 1'000, 4242, 0);
  EXPECT_THAT(std::string(unregistered.Resolve(&events).message()),
              HasSubstr("pid 4242 is not a registered task"));
}

TEST_F(TracegenTest, SyntheticTraceHasTheCountsItPromises) {
  SyntheticOptions options;
  options.events = 100'003;
  options.cpus = 4;
  options.idle_gap_every = 1000;
  std::string path = dir_ + "/synthetic.dat";
  TraceDatWriterStats stats;
  ASSERT_TRUE(WriteSyntheticTrace(path, options, &stats).ok());
  EXPECT_EQ(stats.records, 100'003);
  EXPECT_EQ(stats.missed_marks, 4);
  // Each CPU runs ~25000 events = ~2272 cycles, idling for 200 ms every 1000 cycles.
  EXPECT_EQ(stats.time_extends, 4 * 2);
  Loaded got = Load(path);
  ASSERT_TRUE(got.status.ok()) << got.status;
  std::map<std::string, int64_t> counts;
  int64_t missed = 0;
  for (const Event& event : got.events) {
    if (event.kind == EventKind::kMissedEvents) {
      ++missed;
      EXPECT_EQ(event.missed.count, 1000);
      continue;
    }
    ++counts[std::string(got.context.strings.Get(event.name))];
  }
  EXPECT_EQ(missed, 4);
  EXPECT_EQ(static_cast<int64_t>(got.events.size()) - missed, 100'003);
  // 25001 events on CPU0 (2272 cycles + 9), 25001, 25001, 25000 (2272 cycles + 8).
  EXPECT_EQ(counts["irq_handler_entry"], 4 * 2273);
  EXPECT_EQ(counts["sched_switch"], 2 * 4 * 2272);
  EXPECT_EQ(counts["softirq_exit"], 4 * 2273);
  EXPECT_EQ(counts["sched_wakeup"], 3 * 2273 + 2272);
}

}  // namespace
}  // namespace napiscope::tracegen
