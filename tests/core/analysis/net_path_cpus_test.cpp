// net-path-priority counts each RT holder on the CPU it held (issue 63, item 4): "waited 20.89
// ms on CPU0 behind RT tasks ... cyclictest (pid 18165) 7.62 ms" named a task that only ran on
// CPU1, where the IRQ's other NAPI thread waited.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_pipeline.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kNapi0 = 301, kNapi1 = 302, kIperf = 500, kCyclictest = 600;
constexpr TimestampNs kUs = 1000;

// IRQ 45 wakes napi/eth0-1 on CPU0, where FIFO 60 iperf3 runs on for 3 ms, and napi/eth0-2
// on CPU1, where FIFO 95 cyclictest runs on for 1 ms.
EventBuilder TwoQueues() {
  EventBuilder b(2);
  b.Task(kNapi0, "napi/eth0-1", 120).Task(kNapi1, "napi/eth0-2", 120);
  b.Task(kIperf, "iperf3", 39).Task(kCyclictest, "cyclictest", 4);
  b.Other(0, 0, 0, "x").Other(1, 0, 0, "x");
  b.Switch(0, 100 * kUs, 0, 0, kIperf).Switch(1, 100 * kUs, 0, 0, kCyclictest);
  b.IrqEntry(0, 1000 * kUs, kIperf, 45, "eth0")
      .Waking(0, 1001 * kUs, kIperf, kNapi0, 0)
      .IrqExit(0, 1002 * kUs, kIperf, 45, 1);
  b.IrqEntry(1, 2000 * kUs, kCyclictest, 45, "eth0")
      .Waking(1, 2001 * kUs, kCyclictest, kNapi1, 1)
      .IrqExit(1, 2002 * kUs, kCyclictest, 45, 1);
  b.Switch(1, 3000 * kUs, kCyclictest, kStateInterruptible, kNapi1)
      .NapiPoll(1, 3050 * kUs, kNapi1, 0x2, "eth0", 3, 64)
      .Switch(1, 3100 * kUs, kNapi1, kStateInterruptible, 0);
  b.Switch(0, 4000 * kUs, kIperf, kStateInterruptible, kNapi0)
      .NapiPoll(0, 4050 * kUs, kNapi0, 0x1, "eth0", 5, 64)
      .Switch(0, 4100 * kUs, kNapi0, kStateInterruptible, 0);
  return b;
}

TEST(NetPathCpus, EachHolderIsCountedOnTheCpuItHeld) {
  EventBuilder b = TwoQueues();
  AnalysisPipeline pipeline(PipelineOptions{});
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  ASSERT_EQ(report.net_path.size(), 1u);
  const NetPathRow& row = report.net_path[0];
  ASSERT_EQ(row.held_by_cpu.size(), 2u);
  EXPECT_EQ(row.held_by_cpu[0].cpu, 0);
  EXPECT_EQ(row.held_by_cpu[0].waits, 1);
  EXPECT_EQ(row.held_by_cpu[0].held_ns, 2998 * kUs);  // iperf3 from the IRQ's exit to 4000
  EXPECT_EQ(row.held_by_cpu[0].runners, std::vector<int32_t>{kNapi0});
  ASSERT_EQ(row.held_by_cpu[0].holders.size(), 1u);
  EXPECT_EQ(row.held_by_cpu[0].holders[0].pid, kIperf);
  EXPECT_EQ(row.held_by_cpu[1].cpu, 1);
  EXPECT_EQ(row.held_by_cpu[1].held_ns, 998 * kUs);
  ASSERT_EQ(row.held_by_cpu[1].holders.size(), 1u);
  EXPECT_EQ(row.held_by_cpu[1].holders[0].pid, kCyclictest);
  EXPECT_EQ(row.held_by_cpu[1].runners, std::vector<int32_t>{kNapi1});

  auto finding = std::find_if(report.findings.begin(), report.findings.end(),
                              [](const Finding& f) { return f.rule == "net-path-priority"; });
  ASSERT_NE(finding, report.findings.end());
  EXPECT_EQ(finding->cpu, -1);  // two CPUs
  EXPECT_EQ(finding->evidence["held_ns"], 3996 * kUs);
  EXPECT_EQ(finding->evidence["waits"], 2);
  EXPECT_EQ(finding->evidence["longest_held_ns"], 2998 * kUs);
  // The sentence is a total over the waits, then each CPU with its own runner and holder.
  EXPECT_THAT(finding->summary, ::testing::HasSubstr("in total over 2 waits"));
  EXPECT_THAT(finding->summary,
              ::testing::HasSubstr("on CPU0, napi/eth0-1 (pid 301, SCHED_OTHER) waited"));
  EXPECT_THAT(finding->summary,
              ::testing::HasSubstr("on CPU1, napi/eth0-2 (pid 302, SCHED_OTHER) waited"));
  std::string on_cpu0 = finding->summary.substr(0, finding->summary.find("on CPU1"));
  EXPECT_THAT(on_cpu0, ::testing::Not(::testing::HasSubstr("cyclictest")));
  EXPECT_THAT(finding->summary.substr(finding->summary.find("on CPU1")),
              ::testing::HasSubstr("behind cyclictest (pid 600, RT 95)"));
  EXPECT_EQ(finding->evidence["commands"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"chrt -f -p 96 301", "chrt -f -p 96 302"}));
  const nlohmann::json& holders = finding->evidence["holders"];
  ASSERT_EQ(holders.size(), 2u);
  EXPECT_EQ(holders[0]["cpu"], 0);
  EXPECT_EQ(holders[0]["pid"], kIperf);
  EXPECT_EQ(holders[1]["cpu"], 1);
  EXPECT_EQ(holders[1]["pid"], kCyclictest);
}

}  // namespace
}  // namespace napiscope
