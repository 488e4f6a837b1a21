// A ksoftirqd starved for the whole recording gets a finding (issue 63, item 7): with a FIFO 50
// busy loop and a FIFO 60 sender on CPU1, ksoftirqd/1 did not run once while softirqs raised
// there waited; it was runnable before the trace began, so no wakeup could be timed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_pipeline.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kKsoftirqd1 = 21, kBusy = 600, kIperf = 500;
constexpr TimestampNs kUs = 1000;

EventBuilder BusyCpu1(bool ksoftirqd_runs, bool ksoftirqd_woken = false) {
  EventBuilder b(2);
  b.Task(kKsoftirqd1, "ksoftirqd/1", 120).Task(kBusy, "busy", 49).Task(kIperf, "iperf3", 39);
  b.Other(0, 0, 0, "x").Other(1, 0, 0, "x");
  b.Switch(1, 100 * kUs, 0, 0, kBusy)
      .IrqEntry(1, 1000 * kUs, kBusy, 30, "eth0")
      .Raise(1, 1001 * kUs, kBusy, kNetRx)  // deferred to ksoftirqd/1
      .IrqExit(1, 1002 * kUs, kBusy, 30, 1);
  if (ksoftirqd_woken) b.Waking(1, 1003 * kUs, kBusy, kKsoftirqd1, 1);
  b.Waking(1, 5000 * kUs, kBusy, kIperf, 1)
      .Switch(1, 5001 * kUs, kBusy, kStatePreempted, kIperf)
      .SoftirqEntry(1, 5100 * kUs, kIperf, kNetRx)  // at the sender's local_bh_enable
      .SoftirqExit(1, 5150 * kUs, kIperf, kNetRx)
      .VectorEntry(1, 6000 * kUs, kIperf, "local_timer", 236)
      .Raise(1, 6001 * kUs, kIperf, kTimer)  // never runs
      .VectorExit(1, 6002 * kUs, kIperf, "local_timer", 236)
      .Switch(1, 8000 * kUs, kIperf, kStateInterruptible, kBusy);
  if (ksoftirqd_runs) {
    b.Switch(1, 300'000 * kUs, kBusy, kStatePreempted, kKsoftirqd1)
        .Switch(1, 300'010 * kUs, kKsoftirqd1, kStateInterruptible, kBusy);
  }
  b.Other(0, 600'000 * kUs, 0, "x").Other(1, 600'000 * kUs, kBusy, "x");
  return b;
}

Report Analyze(EventBuilder& b) {
  AnalysisPipeline pipeline(PipelineOptions{});
  b.Play(pipeline);
  return pipeline.Finish(b.context());
}

const Finding* Starved(const Report& report) {
  for (const Finding& finding : report.findings) {
    if (finding.rule == "softirq-thread-starved") return &finding;
  }
  return nullptr;
}

TEST(SoftirqThreadStarved, AKsoftirqdThatNeverRanBehindRtTasksIsAWarning) {
  EventBuilder b = BusyCpu1(false);
  Report report = Analyze(b);
  ASSERT_EQ(report.softirq_thread_starved.size(), 1u);
  const StarvedSoftirqThreadRow& row = report.softirq_thread_starved[0];
  EXPECT_EQ(row.cpu, 1);
  EXPECT_EQ(row.pid, kKsoftirqd1);
  EXPECT_EQ(row.comm, "ksoftirqd/1");
  EXPECT_EQ(row.from_ns, 0);
  EXPECT_EQ(row.to_ns, 600'000 * kUs);
  // busy: 100..5001 and 8000..600000 less its IRQ (2 us); iperf3: 5001..8000 less its NET_RX
  // (50 us) and the tick (2 us).
  ASSERT_EQ(row.rt_holders.size(), 2u);
  EXPECT_EQ(row.rt_holders[0].pid, kBusy);
  EXPECT_EQ(row.rt_holders[0].time_ns, (4901 + 592'000 - 2) * kUs);
  EXPECT_EQ(row.rt_holders[1].pid, kIperf);
  EXPECT_EQ(row.rt_holders[1].time_ns, (2999 - 50 - 2) * kUs);
  EXPECT_EQ(row.rt_ns, (596'899 + 2947) * kUs);
  // TIMER raised at 6001 us never ran: the longest wait, to the end of the CPU's recording.
  EXPECT_EQ(row.longest_vec, static_cast<uint32_t>(kTimer));
  EXPECT_TRUE(row.longest_never_ran);
  EXPECT_EQ(row.longest_wait_ns, (600'000 - 6001) * kUs);
  EXPECT_EQ(row.pending_at_end, 1u << kTimer);

  const Finding* finding = Starved(report);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kWarning);
  EXPECT_EQ(finding->cpu, 1);
  EXPECT_EQ(finding->pid, kKsoftirqd1);
  EXPECT_THAT(finding->summary, ::testing::StartsWith("ksoftirqd/1 (pid 21) did not run once"));
  EXPECT_THAT(finding->summary, ::testing::HasSubstr("RT tasks held CPU1 100% of that time"));
  EXPECT_THAT(finding->summary, ::testing::HasSubstr("busy (pid 600, RT 50)"));
  EXPECT_THAT(finding->summary, ::testing::HasSubstr("chrt -f -p 61 21"));
  EXPECT_EQ(finding->evidence["holders"][0]["pid"], kBusy);
  EXPECT_EQ(finding->evidence["holders"][0]["cpu"], 1);
}

TEST(SoftirqThreadStarved, NoFindingWhenKsoftirqdRanOnce) {
  EventBuilder b = BusyCpu1(true);
  Report report = Analyze(b);
  EXPECT_TRUE(report.softirq_thread_starved.empty());
  EXPECT_EQ(Starved(report), nullptr);
}

TEST(SoftirqThreadStarved, NoFindingWhenRtTasksHeldLessThanTheShare) {
  EventBuilder b = BusyCpu1(false);
  PipelineOptions options;
  options.thresholds.softirq_thread_starved_rt_share = 1.0;  // they held 99.97%
  AnalysisPipeline pipeline(options);
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  EXPECT_TRUE(report.softirq_thread_starved.empty());
}

// A ksoftirqd woken in the recording has a wakeup to time: softirq-starvation explains its
// wait (a range that ends before it runs must not call it starved since before the trace).
TEST(SoftirqThreadStarved, NoFindingForAKsoftirqdWhoseWakeupWasRecorded) {
  EventBuilder b = BusyCpu1(false, true);
  Report report = Analyze(b);
  EXPECT_TRUE(report.softirq_thread_starved.empty());
  EXPECT_EQ(Starved(report), nullptr);
}

}  // namespace
}  // namespace napiscope
