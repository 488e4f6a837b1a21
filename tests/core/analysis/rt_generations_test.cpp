// PREEMPT_RT generations (testdata/scenarios/rt_*): softirq threads of every generation are
// their own site (never task_bh_enable), the PREEMPT_RT verdict names its evidence, and the
// network path's priority chain and its finding are what each scenario states.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/analysis_session.h"
#include "napiscope/task_class.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::ReadFile;
using ::napiscope::testing::TestData;
using nlohmann::json;

class RtGeneration : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    expected_ = json::parse(ReadFile(TestData("scenarios/" + GetParam() + ".expected.json")));
    ASSERT_TRUE(AnalyzeTrace(TestData("scenarios/" + GetParam() + ".dat"), {}, &report_).ok());
  }
  json expected_;
  Report report_;
};

TEST_P(RtGeneration, SoftirqThreadRunsAreNotTaskBhEnable) {
  std::map<std::string, int64_t> stated;
  for (const json& raise : expected_["facts"]["softirq_raises"]) ++stated[raise["context"]];
  int64_t in_softirq_threads = 0, in_bh_enable = 0;
  for (const SoftirqLatencyRow& row : report_.softirq_latency) {
    for (const auto& [site, count] : row.ran_in) {
      if (site == SoftirqSite::kSoftirqThread) in_softirq_threads += count;
      if (site == SoftirqSite::kTaskBhEnable) in_bh_enable += count;
    }
  }
  EXPECT_EQ(in_softirq_threads, stated["softirq_thread"]);
  EXPECT_GT(in_softirq_threads, 0);
  EXPECT_EQ(in_bh_enable, 0);
}

TEST_P(RtGeneration, VerdictNamesItsEvidence) {
  const json& kernel = expected_["facts"]["kernel"];
  EXPECT_EQ(report_.kernel.preempt_rt, kernel["preempt_rt"].get<std::string>())
      << report_.kernel.evidence;
  EXPECT_EQ(report_.kernel.evidence_used, kernel["evidence_used"].get<std::vector<std::string>>());
}

TEST_P(RtGeneration, PriorityChainIsWhatTheScenarioStates) {
  const json& chains = expected_["facts"]["net_path"];
  ASSERT_EQ(report_.net_path.size(), chains.size());
  for (size_t i = 0; i < chains.size(); ++i) {
    const json& want = chains[i];
    const NetPathRow& row = report_.net_path[i];
    SCOPED_TRACE(::testing::Message() << "IRQ " << row.irq.number);
    EXPECT_EQ(row.irq.number, want["irq"].get<int>());
    EXPECT_EQ(row.irq_thread.pid, want["irq_thread_pid"].get<int>());
    EXPECT_EQ(row.irq_thread.prio, want["irq_thread_prio"].get<int>());
    ASSERT_FALSE(row.runners.empty());
    EXPECT_EQ(row.runners.front().pid, want["runner_pid"].get<int>());
    EXPECT_EQ(row.runners.front().prio, want["runner_prio"].get<int>());
    EXPECT_EQ(row.runners.front().role, want["runner_role"].get<std::string>());
    EXPECT_EQ(row.runners.front().runs, want["runner_runs"].get<int64_t>());
    ASSERT_EQ(row.rt_tasks.size(), want["rt_tasks"].size());
    for (size_t t = 0; t < row.rt_tasks.size(); ++t) {
      EXPECT_EQ(row.rt_tasks[t].pid, want["rt_tasks"][t]["pid"].get<int>());
      EXPECT_EQ(row.rt_tasks[t].position, want["rt_tasks"][t]["position"].get<std::string>());
      EXPECT_EQ(row.rt_tasks[t].held_while_waiting_ns,
                want["rt_tasks"][t]["held_while_waiting_ns"].get<int64_t>());
    }
    EXPECT_EQ(row.same_priority, want["same_priority"].get<bool>());
    EXPECT_EQ(row.starved, want["starved"].get<bool>());
    EXPECT_EQ(row.worst_held_from_ns, want["held_wait"][0].get<int64_t>());
    EXPECT_EQ(row.worst_held_to_ns, want["held_wait"][1].get<int64_t>());
    auto finding = std::find_if(
        report_.findings.begin(), report_.findings.end(),
        [&](const Finding& f) { return f.rule == "net-path-priority" && f.irq == row.irq; });
    std::vector<std::string> commands = want["commands"];
    if (commands.empty()) {
      EXPECT_EQ(finding, report_.findings.end());
    } else {
      ASSERT_NE(finding, report_.findings.end());
      EXPECT_EQ(finding->evidence["commands"].get<std::vector<std::string>>(), commands);
      // The finding points at the wait RT tasks held longest (the GUI zooms there, the HTML
      // draws it): it had no time at all.
      if (row.starved) {
        EXPECT_EQ(finding->start_ns, row.worst_held_from_ns);
        EXPECT_EQ(finding->end_ns, row.worst_held_to_ns);
      }
      for (const std::string& command : commands) {
        EXPECT_NE(finding->summary.find(command), std::string::npos) << finding->summary;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Generations, RtGeneration,
                         ::testing::Values("rt_2_6_26_sirq_threads", "rt_4_4_irq_threads",
                                           "rt_current_threaded_napi"));

TEST(TaskClassNames, EveryGenerationsThreadsAreRecognised) {
  EXPECT_EQ(ClassifyTask(10, "sirq-net-rx/0", 49), TaskClass::kSoftirqThread);
  EXPECT_EQ(ClassifyTask(10, "softirq-timer/1", 49), TaskClass::kSoftirqThread);
  EXPECT_EQ(ClassifyTask(10, "ktimersoftd/2", 98), TaskClass::kSoftirqThread);
  EXPECT_EQ(ClassifyTask(10, "ktimers/3", 98), TaskClass::kSoftirqThread);
  EXPECT_EQ(ClassifyTask(10, "softirq-hrtimer", 49), TaskClass::kSoftirqThread);  // cut at 15
  EXPECT_EQ(ClassifyTask(10, "IRQ-16", 49), TaskClass::kIrqThread);
  EXPECT_EQ(ClassifyTask(10, "irq/354-4848400", 49), TaskClass::kIrqThread);
  EXPECT_EQ(ClassifyTask(10, "ksoftirqd/0", 120), TaskClass::kKsoftirqd);
  EXPECT_EQ(ClassifyTask(10, "napi/eth0-8193", 120), TaskClass::kNapiKthread);
  EXPECT_EQ(ClassifyTask(10, "IRQ-16x", 120), TaskClass::kOther);
  EXPECT_EQ(ClassifyTask(10, "sirq-net-rx", 120), TaskClass::kOther);  // not cut, no CPU
  int cpu = 0;
  uint32_t vectors = 0;
  ASSERT_TRUE(ParseSoftirqThreadName("sirq-net-rx/3", &cpu, &vectors));
  EXPECT_EQ(cpu, 3);
  EXPECT_EQ(vectors, 1u << kNetRx);
  int32_t irq = 0;
  ASSERT_TRUE(ParseIrqThreadName("IRQ-16", &irq));
  EXPECT_EQ(irq, 16);
}

}  // namespace
}  // namespace napiscope
