// NAPI rows and RT wake latency on the real veth recordings, against `trace-cmd report`:
// polls per device equal the napi_poll lines trace-cmd prints, those of napi/* threads in the
// threaded recording and those of softirq in the other; cyclictest's wakeups are measured.
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CommandResult;
using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;

struct TraceCmdPolls {
  std::map<std::string, int64_t> by_dev;            // every napi_poll line
  std::map<std::string, int64_t> by_dev_in_kthread;  // ... whose task is napi/*
};

// "napi/va-264-10771 [000]   705.338077: napi_poll: napi poll on napi struct 0x... for device
// va work 64 budget 64"
TraceCmdPolls PollsFromTraceCmd(const std::string& path) {
  CommandResult result = RunCommand("trace-cmd report -i " + path + " 2>/dev/null");
  EXPECT_EQ(result.exit_code, 0);
  TraceCmdPolls polls;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    size_t device = line.find(" napi_poll: ");
    if (device == std::string::npos) continue;
    device = line.find("for device ", device);
    if (device == std::string::npos) continue;
    device += 11;
    std::string dev = line.substr(device, line.find(' ', device) - device);
    ++polls.by_dev[dev];
    size_t comm = line.find_first_not_of(' ');
    if (line.compare(comm, 5, "napi/") == 0) ++polls.by_dev_in_kthread[dev];
  }
  return polls;
}

class NapiRtOnRealTrace : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = TestData("real/" + GetParam() + ".dat");
    ASSERT_TRUE(AnalyzeTrace(path_, {}, &report_).ok());
  }
  std::string path_;
  Report report_;
};

TEST_P(NapiRtOnRealTrace, PollsPerDeviceAndContextAgreeWithTraceCmd) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  TraceCmdPolls want = PollsFromTraceCmd(path_);
  ASSERT_FALSE(want.by_dev.empty());
  std::map<std::string, int64_t> polls, in_kthread, in_softirq;
  for (const NapiRow& row : report_.napi) {
    polls[row.dev] += row.polls;
    if (row.context == SoftirqSite::kNapiKthread) in_kthread[row.dev] += row.polls;
    if (row.context == SoftirqSite::kIrqExit || row.context == SoftirqSite::kTaskBhEnable ||
        row.context == SoftirqSite::kKsoftirqd || row.context == SoftirqSite::kUnknown) {
      in_softirq[row.dev] += row.polls;
    }
    EXPECT_GE(row.netif_receive_skb, 0) << "the recordings have net:netif_receive_skb";
    EXPECT_LE(row.exhausted, row.polls);
  }
  EXPECT_EQ(polls, want.by_dev);
  if (GetParam() == "veth-threaded-napi") {
    EXPECT_EQ(in_kthread, want.by_dev_in_kthread);
  } else {
    EXPECT_TRUE(in_kthread.empty());
    EXPECT_EQ(in_softirq, want.by_dev);
  }
}

TEST_P(NapiRtOnRealTrace, CyclictestWakeupsAreMeasured) {
  int64_t wakeups = 0;
  for (const WakeLatencyRow& row : report_.rt_wake_latency) {
    if (row.comm != "cyclictest") continue;
    EXPECT_EQ(row.policy, SchedPolicyClass::kRealtime);
    EXPECT_EQ(RtPriorityOf(row.prio), 98);  // cyclictest -p98
    wakeups += row.latency.count;
    ASSERT_FALSE(row.worst.empty());
    EXPECT_EQ(row.worst[0].latency_ns, row.latency.max_ns);
    for (const WakeLatencySample& sample : row.worst) {
      int64_t held = sample.unknown_ns;
      for (const BlameItem& item : sample.blame) held += item.time_ns;
      EXPECT_EQ(held, sample.latency_ns) << "blame must cover the wakeup at " << sample.waking_ns;
    }
  }
  // cyclictest -i250 for about a second on 2 CPUs: thousands of wakeups.
  EXPECT_GT(wakeups, 1000);
  EXPECT_EQ(report_.kernel.preempt_rt, "no");  // 6.18 PREEMPT_DYNAMIC
}

INSTANTIATE_TEST_SUITE_P(VethRecordings, NapiRtOnRealTrace,
                         ::testing::Values("veth-softirq-napi", "veth-threaded-napi"));

}  // namespace
}  // namespace napiscope
