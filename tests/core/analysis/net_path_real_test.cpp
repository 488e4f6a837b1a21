// The network path's priority table on a real recording (testdata/real/napi-chrt.dat, made by
// scripts/record-napi-chrt.sh): eth0 (virtio-net) in threaded-NAPI mode, its NAPI kthreads set to
// SCHED_FIFO 60 and an RT task to SCHED_FIFO 70 with chrt. The truth is what chrt reported at the
// time (napi-chrt.chrt.json), and which kthread each NIC IRQ's handler woke, counted here from
// the raw events with no pairing rules of the analysis.
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::ReadFile;
using ::napiscope::testing::TestData;
using json = nlohmann::json;

struct ChrtThread {
  std::string comm;
  std::string policy;
  int priority = 0;
};

// For each IRQ, how often its handler woke each pid (a sched_waking on the handler's CPU between
// its irq_handler_entry and irq_handler_exit).
class HandlerWakeups : public EventSink {
 public:
  void OnEvent(const Event& event) override {
    if (event.kind == EventKind::kIrqHandlerEntry) in_handler_[event.cpu] = event.irq.irq;
    if (event.kind == EventKind::kIrqHandlerExit) in_handler_.erase(event.cpu);
    if (event.kind != EventKind::kSchedWaking) return;
    auto running = in_handler_.find(event.cpu);
    if (running != in_handler_.end()) ++woken[running->second][event.wake.pid];
  }
  std::map<int32_t, std::map<int32_t, int64_t>> woken;  // irq -> pid -> wakeups

 private:
  std::map<uint16_t, int32_t> in_handler_;  // cpu -> irq whose handler runs
};

class NetPathRealTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TestData("real/napi-chrt.dat");
    truth_ = json::parse(ReadFile(TestData("real/napi-chrt.chrt.json")));
    for (const json& thread : truth_["threads"]) {
      chrt_[thread["pid"].get<int32_t>()] = {thread["comm"], thread["policy"],
                                             thread["priority"].get<int>()};
    }
    ASSERT_TRUE(AnalyzeTrace(path_, AnalysisOptions{}, &report_).ok());
  }
  std::string path_;
  json truth_;
  std::map<int32_t, ChrtThread> chrt_;  // pid -> what chrt said
  Report report_;
};

TEST_F(NetPathRealTrace, EveryNapiKthreadAndRtTaskHasThePriorityChrtReported) {
  ASSERT_GE(chrt_.size(), 2u);
  std::set<int32_t> runners_seen;
  for (const NetPathRow& row : report_.net_path) {
    SCOPED_TRACE(row.handler);
    for (const NetPathThread& runner : row.runners) {
      auto truth = chrt_.find(runner.pid);
      ASSERT_NE(truth, chrt_.end()) << runner.comm << " (" << runner.pid << ") was not set by chrt";
      EXPECT_EQ(runner.comm, truth->second.comm);
      EXPECT_EQ(truth->second.policy, "SCHED_FIFO");
      EXPECT_EQ(runner.rt_priority, truth->second.priority) << runner.comm;
      EXPECT_EQ(runner.prio, 99 - truth->second.priority) << runner.comm;
      EXPECT_EQ(runner.role, "napi_kthread");
      runners_seen.insert(runner.pid);
    }
    for (const NetPathRtTask& task : row.rt_tasks) {
      auto truth = chrt_.find(task.pid);
      if (truth == chrt_.end()) continue;  // another RT task of the machine
      EXPECT_EQ(task.rt_priority, truth->second.priority) << task.comm;
      // 70 is above the NAPI kthreads' 60, and the IRQ is not threaded.
      EXPECT_EQ(task.position, "above") << task.comm;
      EXPECT_LE(task.held_while_waiting_ns, task.run_ns);
    }
  }
  for (const auto& [pid, thread] : chrt_) {
    if (thread.comm.rfind("napi/", 0) != 0) continue;
    EXPECT_TRUE(runners_seen.count(pid)) << thread.comm << " is no chain's runner";
  }
}

TEST_F(NetPathRealTrace, EachNicIrqsRunnerIsTheKthreadItsHandlerWoke) {
  TraceContext context;
  HandlerWakeups wakeups;
  ASSERT_TRUE(LoadTrace(path_, context, wakeups).ok());
  const int32_t receive_irq = truth_["irq"].get<int32_t>();
  bool receive_irq_seen = false;
  for (const NetPathRow& row : report_.net_path) {
    SCOPED_TRACE(row.handler);
    ASSERT_FALSE(row.runners.empty());
    const std::map<int32_t, int64_t>& woken = wakeups.woken[row.irq.number];
    int32_t most_woken = -1;
    int64_t most = 0;
    for (const auto& [pid, count] : woken) {
      if (chrt_.count(pid) && count > most) most_woken = pid, most = count;
    }
    EXPECT_EQ(row.runners.front().pid, most_woken);
    EXPECT_GT(row.hardirqs, 1000);  // a second of flood ping
    if (row.irq == InterruptId{receive_irq, false}) {
      receive_irq_seen = true;
      EXPECT_EQ(row.handler, std::string(truth_["irq_handler"]));
      EXPECT_EQ(row.irq_cpus, std::vector<int>{truth_["irq_cpu"].get<int>()});
    }
  }
  EXPECT_TRUE(receive_irq_seen) << "no chain for the receive IRQ " << receive_irq;
}

}  // namespace
}  // namespace napiscope
