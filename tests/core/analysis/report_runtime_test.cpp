// Softirq and hard-IRQ run times, CPU time breakdown and the duration statistics behind them.
#include <algorithm>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/duration_recorder.h"
#include "napiscope/analysis_session.h"
#include "napiscope/format.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100;
constexpr int32_t kCyclictest = 200;

Report Analyze(EventBuilder& builder, const AnalysisOptions& options = {}) {
  AnalysisPipeline pipeline(options);
  builder.Play(pipeline);
  return pipeline.Finish(builder.context());
}

TEST(DurationRecorder, NearestRankUsesIntegerArithmetic) {
  EXPECT_EQ(internal::NearestRank(999, 1000), 999);
  EXPECT_EQ(internal::NearestRank(999, 1001), 1000);
  EXPECT_EQ(internal::NearestRank(990, 100), 99);
  EXPECT_EQ(internal::NearestRank(500, 1), 1);
  EXPECT_EQ(internal::NearestRank(500, 3), 2);
  EXPECT_EQ(internal::NearestRank(900, 11), 10);
}

TEST(DurationRecorder, ExactPercentilesAreTheNearestRanksOfTheSortedSamples) {
  // Pseudo-random samples with many repeats and a few past 2^32 ns, against a sorted copy.
  internal::DurationRecorder recorder;
  std::vector<int64_t> samples;
  uint64_t state = 12345;
  for (int i = 0; i < 5001; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    int64_t value = static_cast<int64_t>(state >> 53);  // 0..2047: repeats
    if (i % 97 == 0) value += int64_t{1} << 33;
    samples.push_back(value);
    recorder.Add(value, i);
  }
  std::sort(samples.begin(), samples.end());
  auto rank = [&](int64_t per_mille) {
    return samples[internal::NearestRank(per_mille, static_cast<int64_t>(samples.size())) - 1];
  };
  DurationStats stats = recorder.Stats();
  EXPECT_TRUE(stats.exact);
  EXPECT_EQ(stats.p50_ns, rank(500));
  EXPECT_EQ(stats.p90_ns, rank(900));
  EXPECT_EQ(stats.p99_ns, rank(990));
  EXPECT_EQ(stats.p999_ns, rank(999));
  EXPECT_GT(stats.p999_ns, int64_t{1} << 33);
}

TEST(DurationRecorder, PastTheExactLimitPercentilesAreBoundedAbove) {
  internal::DurationRecorder exact;
  internal::DurationRecorder folded(100);
  for (int64_t v = 1; v <= 1000; ++v) {
    int64_t value = v * 1'000'003;  // ~1 ms steps, far above the exact 2048 ns range
    exact.Add(value, v);
    folded.Add(value, v);
  }
  DurationStats a = exact.Stats();
  DurationStats b = folded.Stats();
  EXPECT_TRUE(a.exact);
  EXPECT_FALSE(b.exact);
  EXPECT_EQ(b.count, 1000);
  EXPECT_EQ(b.min_ns, a.min_ns);
  EXPECT_EQ(b.max_ns, a.max_ns);
  EXPECT_EQ(b.max_at_ns, 1000);
  for (auto [approx, truth] : {std::pair{b.p50_ns, a.p50_ns},
                               {b.p90_ns, a.p90_ns},
                               {b.p99_ns, a.p99_ns},
                               {b.p999_ns, a.p999_ns}}) {
    EXPECT_GE(approx, truth);
    EXPECT_LE(approx - truth, truth / 1024);
  }
}

TEST(DurationRecorder, SmallValuesStayExactWhenFolded) {
  internal::DurationRecorder folded(4);
  for (int64_t v : {7, 3, 2000, 5, 11, 1999, 4}) folded.Add(v, 0);
  DurationStats stats = folded.Stats();
  EXPECT_FALSE(stats.exact);
  EXPECT_EQ(stats.p50_ns, 7);     // rank 4 of 3 4 5 7 11 1999 2000
  EXPECT_EQ(stats.p90_ns, 2000);  // rank 7
}

TEST(DurationRecorder, SamplesPastFourSecondsKeepTheirValue) {
  // 2^32 ns and above are kept apart from the 4-byte samples; both count toward the limit.
  const int64_t kLong = (int64_t{1} << 32) + 5;
  internal::DurationRecorder exact;
  for (int64_t v : {kLong + 100, int64_t{10}, kLong, int64_t{4294967295}, int64_t{20}}) {
    exact.Add(v, v);
  }
  DurationStats stats = exact.Stats();
  EXPECT_TRUE(stats.exact);
  EXPECT_EQ(stats.p50_ns, 4294967295);  // rank 3 of 10 20 2^32-1 kLong kLong+100
  EXPECT_EQ(stats.p90_ns, kLong + 100);
  EXPECT_EQ(stats.min_ns, 10);

  internal::DurationRecorder folded(3);
  for (int64_t v : {kLong, int64_t{7}, kLong, int64_t{9}}) folded.Add(v, 0);
  stats = folded.Stats();
  EXPECT_FALSE(stats.exact);
  EXPECT_EQ(stats.count, 4);
  EXPECT_EQ(stats.p50_ns, 9);      // rank 2 of 7 9 kLong kLong, 9 in an exact bucket
  EXPECT_EQ(stats.p90_ns, kLong);  // the bucket's upper end, capped at the maximum
}

TEST(ContextRuntime, SoftirqPreemptedOnRtIsOneRunOfItsPiecesOnCpu) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", 1);
  b.Other(0, 0, kIperf, "x")
      .SoftirqEntry(0, 100, kIperf, kNetRx)
      .Switch(0, 200, kIperf, kStatePreempted, kCyclictest)
      .Switch(0, 300, kCyclictest, kStateInterruptible, kIperf)
      .SoftirqExit(0, 350, kIperf, kNetRx)
      .SoftirqEntry(0, 400, kIperf, kNetRx)
      .SoftirqExit(0, 420, kIperf, kNetRx)
      .Other(0, 500, kIperf, "x");
  Report report = Analyze(b);
  ASSERT_EQ(report.softirq_runtime.size(), 1u);
  const SoftirqRuntimeRow& row = report.softirq_runtime[0];
  EXPECT_EQ(row.vec, kNetRx);
  EXPECT_EQ(row.run.count, 2);
  EXPECT_EQ(row.run.min_ns, 20);
  EXPECT_EQ(row.run.max_ns, 150);  // 100 + 50 on the CPU; the 100 ns switched out not counted
  EXPECT_EQ(row.run.max_at_ns, 100);
  EXPECT_EQ(row.preempted_runs, 1);
}

TEST(ContextRuntime, HardIrqsWithBothEndsInTheTraceAreMeasured) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", 1);
  b.Other(0, 0, kIperf, "x")
      .IrqExit(0, 5, kIperf, 30)  // began before the trace: not measured
      .IrqEntry(0, 10, kIperf, 30, "eth0")
      .VectorEntry(0, 12, kIperf, "local_timer", 236)  // nested: part of eth0's run
      .VectorExit(0, 15, kIperf, "local_timer", 236)
      .IrqExit(0, 20, kIperf, 30)
      .IrqEntry(0, 40, kIperf, 30, "eth0")
      .IrqExit(0, 45, kIperf, 30)
      .IrqEntry(0, 90, kIperf, 30, "eth0");  // still running at the end: not measured
  b.Other(1, 0, kCyclictest, "x")
      .IrqEntry(1, 50, kCyclictest, 30, "eth0")
      .IrqExit(1, 57, kCyclictest, 30)
      .Switch(1, 60, kCyclictest, kStateInterruptible, 0);  // contexts run only with switches
  Report report = Analyze(b);
  ASSERT_EQ(report.hardirq_runtime.size(), 3u);
  const HardirqRuntimeRow& eth0 = report.hardirq_runtime[0];
  EXPECT_EQ(std::tie(eth0.cpu, eth0.irq, eth0.name),
            std::make_tuple(0, InterruptId{30, false}, std::string("eth0")));
  EXPECT_EQ(eth0.run.count, 2);
  EXPECT_EQ(eth0.run.min_ns, 5);
  EXPECT_EQ(eth0.run.max_ns, 10);
  EXPECT_EQ(eth0.run.max_at_ns, 10);
  const HardirqRuntimeRow& timer = report.hardirq_runtime[1];
  EXPECT_EQ(std::tie(timer.cpu, timer.irq, timer.name),
            std::make_tuple(0, InterruptId{236, true}, std::string("local_timer")));
  EXPECT_EQ(timer.run.max_ns, 3);
  EXPECT_EQ(report.hardirq_runtime[2].cpu, 1);
  EXPECT_EQ(report.hardirq_runtime[2].run.max_ns, 7);
}

TEST(CpuTime, SplitsTheSpanByWhatHeldTheCpu) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", 1).Task(12, "ksoftirqd/0");
  b.Task(0, "swapper/0", 120);
  b.Other(0, 1000, kIperf, "x")
      .IrqEntry(0, 1100, kIperf, 30, "eth0")  // 1100..1150 hard IRQ
      .Raise(0, 1120, kIperf, kNetRx)
      .IrqExit(0, 1150, kIperf, 30)
      .SoftirqEntry(0, 1150, kIperf, kNetRx)  // 1150..1400 NET_RX
      .SoftirqExit(0, 1400, kIperf, kNetRx)
      .Switch(0, 1500, kIperf, kStatePreempted, kCyclictest)  // iperf3: 1000..1100, 1400..1500
      .Switch(0, 1800, kCyclictest, kStateInterruptible, 12)  // cyclictest 300
      .Switch(0, 1850, 12, kStateInterruptible, 0)            // ksoftirqd 50
      .Other(0, 1900, 0, "x")                                 // idle 50
      .Missed(0, 2500, 3)                                     // unknown 1900..2500
      .Other(0, 2500, 0, "x")
      .Other(0, 2600, kIperf, "x")  // a missing switch: 2500..2600 unknown
      .Other(0, 3000, kIperf, "x");
  AnalysisOptions options;
  Report report = Analyze(b, options);
  ASSERT_EQ(report.cpu_time.size(), 1u);
  const CpuTimeRow& row = report.cpu_time[0];
  EXPECT_EQ(row.first_ts_ns, 1000);
  EXPECT_EQ(row.last_ts_ns, 3000);
  EXPECT_EQ(row.span_ns, 2000);
  EXPECT_EQ(row.hardirq_ns, 50);
  EXPECT_EQ(row.softirq_ns[kNetRx], 250);
  EXPECT_EQ(row.other_task_ns, 200 + 400);  // iperf3 before the gap, and 2600..3000
  EXPECT_EQ(row.rt_task_ns, 300);
  EXPECT_EQ(row.ksoftirqd_ns, 50);
  EXPECT_EQ(row.idle_ns, 50);
  EXPECT_EQ(row.unknown_ns, 600 + 100);
  EXPECT_EQ(row.AccountedNs(), row.span_ns - row.unknown_ns);

  options.window.from_ns = 1300;  // clipped: NET_RX 100, iperf3 100, cyclictest 300, ...
  options.window.to_ns = 2000;
  report = Analyze(b, options);
  const CpuTimeRow& clipped = report.cpu_time[0];
  EXPECT_EQ(clipped.span_ns, 700);
  EXPECT_EQ(clipped.softirq_ns[kNetRx], 100);
  EXPECT_EQ(clipped.other_task_ns, 100);
  EXPECT_EQ(clipped.unknown_ns, 100);
  EXPECT_EQ(clipped.AccountedNs(), clipped.span_ns - clipped.unknown_ns);
}

TEST(Format, ParseTimestampReadsWhatFormatTimestampWrites) {
  int64_t ts = 0;
  ASSERT_TRUE(ParseTimestamp("1553.278955", &ts));
  EXPECT_EQ(ts, 1553278955000);
  EXPECT_EQ(FormatTimestamp(ts), "1553.278955");
  ASSERT_TRUE(ParseTimestamp("1553.278955123", &ts));
  EXPECT_EQ(ts, 1553278955123);
  ASSERT_TRUE(ParseTimestamp("1553", &ts));
  EXPECT_EQ(ts, 1553000000000);
  ASSERT_TRUE(ParseTimestamp("42ns", &ts));
  EXPECT_EQ(ts, 42);
  ASSERT_TRUE(ParseTimestamp("42us", &ts));
  EXPECT_EQ(ts, 42000);
  ASSERT_TRUE(ParseTimestamp("42ms", &ts));
  EXPECT_EQ(ts, 42000000);
  for (const char* bad : {"", ".5", "1.", "1.2345678901", "-1", "1e3", "12 ms", "abc", "1.5ms"}) {
    EXPECT_FALSE(ParseTimestamp(bad, &ts)) << bad;
  }
}

}  // namespace
}  // namespace napiscope
