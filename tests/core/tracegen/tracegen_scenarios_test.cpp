// testdata/scenarios: the committed files are what the builders make, load with the counts
// their JSON states, read the same through trace-cmd, and their stated facts match the events.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <absl/strings/str_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "load/text_flags.h"
#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"
#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using nlohmann::json;

struct Loaded {
  absl::Status status;
  TraceContext context;
  std::vector<Event> events;

  std::string Str(StringId id) const { return std::string(context.strings.Get(id)); }
};

Loaded Load(const std::string& path) {
  Loaded loaded;
  CollectingSink sink;
  loaded.status = LoadTrace(path, loaded.context, sink);
  loaded.events = std::move(sink.events);
  return loaded;
}

// The events of `kind` on `cpu` at `ts`.
std::vector<const Event*> At(const Loaded& loaded, EventKind kind, int cpu, TimestampNs ts) {
  std::vector<const Event*> found;
  for (const Event& event : loaded.events) {
    if (event.kind == kind && event.cpu == cpu && event.ts_ns == ts) found.push_back(&event);
  }
  return found;
}

class ScenarioFileTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    builtin_ = FindBuiltinScenario(GetParam());
    ASSERT_NE(builtin_, nullptr);
    dat_ = TestData("scenarios/" + GetParam() + ".dat");
    expected_ = json::parse(ReadFile(TestData("scenarios/" + GetParam() + ".expected.json")),
                            nullptr, false);
    ASSERT_FALSE(expected_.is_discarded()) << "no valid expected JSON for " << GetParam();
    loaded_ = Load(dat_);
    ASSERT_TRUE(loaded_.status.ok()) << loaded_.status;
  }

  const BuiltinScenario* builtin_ = nullptr;
  std::string dat_;
  json expected_;
  Loaded loaded_;
};

TEST_P(ScenarioFileTest, CommittedFilesAreWhatTheBuilderWrites) {
  std::string dir = MakeTempDir();
  ASSERT_TRUE(WriteBuiltinScenario(*builtin_, dir).ok());
  EXPECT_TRUE(ReadFile(dir + "/" + GetParam() + ".dat") == ReadFile(dat_))
      << "testdata/scenarios/" << GetParam()
      << ".dat is stale: run napiscope-tracegen --all -o testdata/scenarios";
  EXPECT_EQ(json::parse(ReadFile(dir + "/" + GetParam() + ".expected.json")), expected_);
  EXPECT_LT(ReadFile(dat_).size(), 200u * 1024);
  std::filesystem::remove_all(dir);
}

TEST_P(ScenarioFileTest, LoadsWithTheStatedCounts) {
  std::map<std::string, std::vector<int64_t>> per_cpu;
  int64_t events = 0;
  json missed = json::array();
  for (const Event& event : loaded_.events) {
    if (event.kind == EventKind::kMissedEvents) {
      missed.push_back({{"cpu", event.cpu}, {"ts_ns", event.ts_ns}, {"count", event.missed.count}});
      continue;
    }
    std::vector<int64_t>& counts = per_cpu[loaded_.Str(event.name)];
    counts.resize(expected_["cpus"].get<int>(), 0);
    ++counts[event.cpu];
    ++events;
  }
  EXPECT_EQ(events, expected_["events"].get<int64_t>());
  EXPECT_EQ(json(per_cpu), expected_["event_counts_per_cpu"]);
  EXPECT_EQ(missed, expected_["missed_events"]);
  EXPECT_EQ(loaded_.context.meta.cpus, expected_["cpus"].get<int>());
}

TEST_P(ScenarioFileTest, TraceCmdReportTextLoadsTheSameEvents) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  testing::CommandResult report = RunCommand("trace-cmd report -t -l -i " + dat_);
  ASSERT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  std::string dir = MakeTempDir();
  WriteFile(dir + "/report.txt", report.out);
  Loaded text = Load(dir + "/report.txt");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(text.status.ok()) << text.status;
  EXPECT_EQ(text.context.meta.skipped_lines, 0);
  DescribeOptions lossy{internal::RepresentableFlags(internal::FlagsDialect::kTraceCmd), 0xff,
                        true};
  ASSERT_EQ(text.events.size(), loaded_.events.size());
  for (size_t i = 0; i < text.events.size(); ++i) {
    ASSERT_EQ(DescribeEvent(text.events[i], text.context.strings, lossy),
              DescribeEvent(loaded_.events[i], loaded_.context.strings, lossy))
        << "event " << i;
  }
}

// The intended facts must at least agree with the events they are about.
TEST_P(ScenarioFileTest, StatedFactsMatchTheEvents) {
  const json& facts = expected_["facts"];
  int checked = 0;
  for (const json& raise : facts.value("softirq_raises", json::array())) {
    int cpu = raise["cpu"], vec = raise["vec"];
    TimestampNs raise_ns = raise["raise_ns"], entry_ns = raise["entry_ns"];
    auto raises = At(loaded_, EventKind::kSoftirqRaise, cpu, raise_ns);
    auto entries = At(loaded_, EventKind::kSoftirqEntry, cpu, entry_ns);
    ASSERT_EQ(raises.size(), 1u) << raise;
    ASSERT_EQ(entries.size(), 1u) << raise;
    EXPECT_EQ(raises[0]->softirq.vec, static_cast<uint32_t>(vec)) << raise;
    EXPECT_EQ(entries[0]->softirq.vec, static_cast<uint32_t>(vec)) << raise;
    if (!raise["delay_ns"].is_null()) {
      EXPECT_EQ(raise["delay_ns"], entry_ns - raise_ns);
    }
    if (raise.contains("pid")) {
      EXPECT_EQ(entries[0]->pid, raise["pid"].get<int>()) << raise;
    }
    ++checked;
  }
  for (const json& thread : facts.value("irq_threads", json::array())) {
    int32_t pid = thread["thread_pid"];
    int switch_ins = 0, migrations = 0;
    std::set<int> cpus;
    for (const Event& event : loaded_.events) {
      if (event.kind == EventKind::kSchedSwitch && event.sched_switch.next_pid == pid) {
        ++switch_ins;
        cpus.insert(event.cpu);
      }
      if (event.kind == EventKind::kSchedMigrateTask && event.migrate.pid == pid) ++migrations;
    }
    EXPECT_EQ(switch_ins, thread["activations"].get<int>()) << thread;
    EXPECT_EQ(migrations, thread["migrations"].get<int>()) << thread;
    EXPECT_EQ(json(cpus), thread["thread_cpus"]) << thread;
    ++checked;
  }
  for (const json& polls : facts.value("napi_polls", json::array())) {
    int count = 0, full = 0, work = 0;
    for (const Event& event : loaded_.events) {
      if (event.kind != EventKind::kNapiPoll || event.cpu != polls["cpu"].get<int>() ||
          event.pid != polls["pid"].get<int>() ||
          absl::StrFormat("0x%x", event.napi.napi) != polls["napi"].get<std::string>()) {
        continue;
      }
      ++count;
      full += event.napi.work == event.napi.budget ? 1 : 0;
      work += event.napi.work;
      EXPECT_EQ(loaded_.Str(event.napi.dev), polls["dev"].get<std::string>());
    }
    EXPECT_EQ(count, polls["polls"].get<int>()) << polls;
    EXPECT_EQ(full, polls["full_budget_polls"].get<int>()) << polls;
    EXPECT_EQ(work, polls["work"].get<int>()) << polls;
    ++checked;
  }
  for (const json& blocked : facts.value("ksoftirqd_blocked", json::array())) {
    int cpu = blocked["cpu"];
    int32_t pid = blocked["pid"];
    auto out = At(loaded_, EventKind::kSchedSwitch, cpu, blocked["blocked_from_ns"]);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0]->sched_switch.prev_pid, pid);
    EXPECT_EQ(out[0]->sched_switch.prev_state, kStateUninterruptible);
    auto in = At(loaded_, EventKind::kSchedSwitch, cpu, blocked["running_again_ns"]);
    ASSERT_EQ(in.size(), 1u);
    EXPECT_EQ(in[0]->sched_switch.next_pid, pid);
    auto woken = At(loaded_, EventKind::kSchedWaking, cpu, blocked["woken_at_ns"]);
    ASSERT_EQ(woken.size(), 1u);
    EXPECT_EQ(woken[0]->wake.pid, pid);
    EXPECT_EQ(woken[0]->pid, blocked["waker_pid"].get<int>());
    ++checked;
  }
  for (const json& idle : facts.value("idle_with_pending", json::array())) {
    auto in = At(loaded_, EventKind::kSchedSwitch, idle["cpu"], idle["idle_from_ns"]);
    ASSERT_EQ(in.size(), 1u);
    EXPECT_EQ(in[0]->sched_switch.next_pid, 0);
    EXPECT_EQ(in[0]->sched_switch.prev_pid, idle["prev_pid"].get<int>());
    auto out = At(loaded_, EventKind::kSchedSwitch, idle["cpu"], idle["idle_until_ns"]);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0]->sched_switch.prev_pid, 0);
    ++checked;
  }
  for (const json& boost : facts.value("pi_boosts", json::array())) {
    for (const char* when : {"boosted_at_ns", "restored_at_ns"}) {
      bool found = false;
      for (const Event& event : loaded_.events) {
        found |= event.kind == EventKind::kSchedPiSetprio && event.ts_ns == boost[when] &&
                 event.pi.pid == boost["pid"].get<int>();
      }
      EXPECT_TRUE(found) << when << " " << boost;
    }
    ++checked;
  }
  for (const json& wakeup : facts.value("wakeups", json::array())) {
    int32_t pid = wakeup["pid"];
    bool woken = false;
    for (const Event& event : loaded_.events) {
      woken |= event.kind == EventKind::kSchedWaking && event.ts_ns == wakeup["waking_ns"] &&
               event.wake.pid == pid;
    }
    EXPECT_TRUE(woken) << wakeup;
    auto in = At(loaded_, EventKind::kSchedSwitch, wakeup["cpu"], wakeup["switch_in_ns"]);
    ASSERT_EQ(in.size(), 1u) << wakeup;
    EXPECT_EQ(in[0]->sched_switch.next_pid, pid);
    EXPECT_EQ(wakeup["switch_in_ns"].get<int64_t>() - wakeup["waking_ns"].get<int64_t>(),
              wakeup["latency_ns"].get<int64_t>());
    int64_t blamed = 0;
    for (const json& holder : wakeup["blame"]) blamed += holder["time_ns"].get<int64_t>();
    EXPECT_EQ(blamed, wakeup["latency_ns"].get<int64_t>()) << wakeup;
    ++checked;
  }
  for (const json& gap : facts.value("missed_gaps", json::array())) {
    bool found = false;
    for (const MissedEventsMark& mark : loaded_.context.missed) {
      found |= mark.cpu == gap["cpu"].get<int>() &&
               mark.ts_ns == gap["first_after_ns"].get<TimestampNs>() &&
               mark.last_before_ns == gap["last_before_ns"].get<TimestampNs>() &&
               mark.count == gap["count"].get<int64_t>();
    }
    EXPECT_TRUE(found) << gap;
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no checkable facts in " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(AllScenarios, ScenarioFileTest,
                         ::testing::Values("irq_threads_bouncing", "irq_threads_pinned",
                                           "ksoftirqd_blocked", "softirq_contexts", "napi_budget",
                                           "missed_events_gap", "rt_wake_latency",
                                           "rt_2_6_26_sirq_threads", "rt_4_4_irq_threads",
                                           "rt_current_threaded_napi"));

TEST(ScenarioFileList, EveryBuiltinScenarioIsTested) { EXPECT_EQ(BuiltinScenarios().size(), 10u); }

}  // namespace
}  // namespace napiscope::tracegen
