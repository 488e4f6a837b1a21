// "No events" is said when there were none (issue 63, item 8): a 3.7 ms stretch in which a CPU
// recorded nothing at all (not even its tick) was blamed on "a section with preemption or
// interrupts disabled" alone; on a VM the vCPU may simply not have run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_pipeline.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kQThread = 700, kNapi = 301;
constexpr TimestampNs kUs = 1000;

// napi/eth0-1 (FIFO 60) is woken on CPU0 at 1001 us while QThread runs; QThread keeps the CPU
// until 4700 us, with nothing recorded in between, or with the tick every millisecond.
Report Analyze(bool ticks) {
  EventBuilder b(1);
  b.Task(kQThread, "QThread", 120).Task(kNapi, "napi/eth0-1", 39);
  b.Other(0, 0, 0, "x")
      .Switch(0, 100 * kUs, 0, 0, kQThread)
      .IrqEntry(0, 1000 * kUs, kQThread, 45, "eth0")
      .Waking(0, 1001 * kUs, kQThread, kNapi, 0)
      .IrqExit(0, 1002 * kUs, kQThread, 45, 1);
  if (ticks) {
    for (TimestampNs t : {2000, 3000, 4000}) {
      b.VectorEntry(0, t * kUs, kQThread, "local_timer", 236)
          .VectorExit(0, (t + 1) * kUs, kQThread, "local_timer", 236);
    }
  }
  b.Switch(0, 4700 * kUs, kQThread, kStatePreempted, kNapi)
      .Switch(0, 4800 * kUs, kNapi, kStateInterruptible, kQThread);
  AnalysisPipeline pipeline(PipelineOptions{});
  b.Play(pipeline);
  return pipeline.Finish(b.context());
}

const Finding* WakeFinding(const Report& report) {
  for (const Finding& finding : report.findings) {
    if (finding.rule == "rt-wake-latency") return &finding;
  }
  return nullptr;
}

TEST(SilentCpu, ANoEventStretchNamesBothCauses) {
  Report report = Analyze(false);
  ASSERT_EQ(report.rt_wake_latency.size(), 1u);
  ASSERT_FALSE(report.rt_wake_latency[0].worst.empty());
  EXPECT_EQ(report.rt_wake_latency[0].worst[0].silent_ns, 3698 * kUs);  // 1002 .. 4700
  const Finding* finding = WakeFinding(report);
  ASSERT_NE(finding, nullptr);
  EXPECT_THAT(finding->summary, ::testing::HasSubstr("CPU0 recorded no event at all for 3.70 ms "
                                                     "of it: either QThread (pid 700) ran with "
                                                     "interrupts or preemption disabled"));
  EXPECT_THAT(finding->summary, ::testing::HasSubstr("on a VM, the vCPU did not run"));
  EXPECT_EQ(finding->evidence["silent_ns"], 3698 * kUs);
}

TEST(SilentCpu, WithTheTickRecordedItIsANonPreemptibleSection) {
  Report report = Analyze(true);
  ASSERT_EQ(report.rt_wake_latency.size(), 1u);
  EXPECT_EQ(report.rt_wake_latency[0].worst[0].silent_ns, 0);  // no stretch of 1 ms
  const Finding* finding = WakeFinding(report);
  ASSERT_NE(finding, nullptr);
  EXPECT_THAT(finding->summary,
              ::testing::HasSubstr("a section with preemption or interrupts disabled"));
  EXPECT_THAT(finding->summary, ::testing::Not(::testing::HasSubstr("vCPU")));
}

}  // namespace
}  // namespace napiscope
