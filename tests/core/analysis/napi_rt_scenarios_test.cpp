// NAPI rows and wake latency on the generated scenarios: the numbers the scenario builders
// state (testdata/scenarios/*.expected.json) come out of the trace.dat files exactly.
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/analysis_session.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::ReadFile;
using ::napiscope::testing::TestData;
using nlohmann::json;

json Facts(const std::string& name) {
  return json::parse(ReadFile(TestData("scenarios/" + name + ".expected.json")))["facts"];
}

Report Analyze(const std::string& name) {
  Report report;
  absl::Status status = AnalyzeTrace(TestData("scenarios/" + name + ".dat"), {}, &report);
  EXPECT_TRUE(status.ok()) << status;
  return report;
}

// The scenario builders' names for where a poll ran, in the report's terms.
std::string ContextName(const std::string& scenario_context) {
  if (scenario_context == "softirq") return "irq_exit";
  if (scenario_context == "napi_thread") return "napi_kthread";
  return scenario_context;
}

TEST(NapiScenario, PollsPerInstanceCpuAndContextAreTheBuildersSums) {
  json facts = Facts("napi_budget");
  Report report = Analyze("napi_budget");
  struct Sum {
    int64_t polls = 0, exhausted = 0, work = 0;
  };
  using Key = std::tuple<std::string, std::string, int, std::string>;  // napi, dev, cpu, context
  std::map<Key, Sum> want, got;
  std::map<Key, int32_t> kthread_pids;  // polls in a NAPI kthread: its pid
  for (const json& poll : facts["napi_polls"]) {
    Key key{poll["napi"], poll["dev"], poll["cpu"], ContextName(poll["context"])};
    if (poll["context"] == "napi_thread") kthread_pids[key] = poll["pid"].get<int32_t>();
    Sum& sum = want[key];
    sum.polls += poll["polls"].get<int64_t>();
    sum.exhausted += poll["full_budget_polls"].get<int64_t>();
    sum.work += poll["work"].get<int64_t>();
  }
  ASSERT_FALSE(kthread_pids.empty()) << "the scenario polls in a NAPI kthread";
  for (const NapiRow& row : report.napi) {
    Key key{fmt::format("{:#x}", row.napi), row.dev, row.cpu,
            std::string(NapiContextName(row.context))};
    EXPECT_EQ(row.kthread_pid, kthread_pids.contains(key) ? kthread_pids[key] : -1);
    Sum& sum = got[key];
    sum.polls += row.polls;
    sum.exhausted += row.exhausted;
    sum.work += row.work;
    EXPECT_EQ(row.budget, 64);
    EXPECT_EQ(row.netif_receive_skb, -1) << "the scenario records no net:netif_receive_skb";
  }
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [key, sum] : want) {
    SCOPED_TRACE(std::get<1>(key) + " cpu" + std::to_string(std::get<2>(key)) + " " +
                 std::get<3>(key));
    ASSERT_TRUE(got.contains(key));
    EXPECT_EQ(got[key].polls, sum.polls);
    EXPECT_EQ(got[key].exhausted, sum.exhausted);
    EXPECT_EQ(got[key].work, sum.work);
  }
  // eth2: two full polls at IRQ exit, then a third in ksoftirqd/0 before one that empties it.
  int64_t eth2_chain = 0;
  for (const NapiRow& row : report.napi) {
    if (row.dev == "eth2") eth2_chain = std::max(eth2_chain, row.max_consecutive_exhausted);
  }
  EXPECT_EQ(eth2_chain, 3);
}

TEST(RtWakeScenario, LatenciesAndBlameAreTheBuildersNumbers) {
  json facts = Facts("rt_wake_latency");
  Report report = Analyze("rt_wake_latency");
  std::map<std::pair<int32_t, int>, const WakeLatencyRow*> rows;
  for (const WakeLatencyRow& row : report.rt_wake_latency) rows[{row.pid, row.cpu}] = &row;
  std::map<std::pair<int32_t, int>, int64_t> wakeups_per_row;
  for (const json& wakeup : facts["wakeups"]) {
    std::pair<int32_t, int> key{wakeup["pid"], wakeup["cpu"]};
    ++wakeups_per_row[key];
    ASSERT_TRUE(rows.contains(key)) << wakeup.dump();
    const WakeLatencyRow& row = *rows[key];
    auto sample = std::find_if(row.worst.begin(), row.worst.end(), [&](const auto& s) {
      return s.waking_ns == wakeup["waking_ns"].get<int64_t>();
    });
    ASSERT_NE(sample, row.worst.end()) << wakeup.dump();
    EXPECT_EQ(sample->switch_in_ns, wakeup["switch_in_ns"].get<int64_t>());
    EXPECT_EQ(sample->latency_ns, wakeup["latency_ns"].get<int64_t>());
    EXPECT_EQ(sample->unknown_ns, 0);
    ASSERT_EQ(sample->blame.size(), wakeup["blame"].size()) << wakeup.dump();
    for (size_t i = 0; i < sample->blame.size(); ++i) {
      const BlameItem& item = sample->blame[i];
      const json& want = wakeup["blame"][i];
      EXPECT_EQ(ContextKindName(item.kind), want["kind"].get<std::string>());
      EXPECT_EQ(item.time_ns, want["time_ns"].get<int64_t>());
      EXPECT_EQ(item.pid, want.value("pid", item.pid));
      EXPECT_EQ(item.irq.number, want.value("irq", item.irq.number));
      EXPECT_EQ(item.vec, want.value("vec", item.vec));
    }
  }
  for (const auto& [key, count] : wakeups_per_row) {
    EXPECT_EQ(rows[key]->latency.count, count) << "pid " << key.first;
  }
  EXPECT_EQ(rows.size(), wakeups_per_row.size());

  std::vector<const Finding*> late, starved;
  for (const Finding& f : report.findings) {
    if (f.rule == "rt-wake-latency") late.push_back(&f);
    if (f.rule == "softirq-starvation") starved.push_back(&f);
  }
  ASSERT_EQ(late.size(), facts["rt_wake_latency_findings"].size());
  EXPECT_EQ(late[0]->evidence["pid"], facts["rt_wake_latency_findings"][0]["pid"]);
  EXPECT_EQ(late[0]->evidence["max_ns"], facts["rt_wake_latency_findings"][0]["max_ns"]);
  EXPECT_EQ(late[0]->evidence["blame"][0]["role"], "higher_prio");
  ASSERT_EQ(starved.size(), facts["softirq_starvation"].size());
  for (const Finding* f : starved) {
    EXPECT_EQ(f->cpu, 0);
    EXPECT_EQ(f->evidence["rt_tasks_ns"], 2'499'500);
  }
  EXPECT_EQ(report.kernel.preempt_rt, "no");  // NET_RX ran at hard-IRQ exit on CPU1
}

}  // namespace
}  // namespace napiscope
