// Softirq raise-to-entry latency on hand-made event sequences whose right answer is obvious.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;
using ::testing::ElementsAre;
using ::testing::Pair;

constexpr int32_t kIperf = 100;
constexpr int32_t kCyclictest = 200;
constexpr int32_t kKsoftirqd0 = 12;

Report Analyze(EventBuilder& builder, const AnalysisOptions& options = {}) {
  AnalysisPipeline pipeline(options);
  builder.Play(pipeline);
  return pipeline.Finish(builder.context());
}

// The findings of one rule (other analyses add their own).
std::vector<Finding> FindingsOf(const Report& report, const std::string& rule) {
  std::vector<Finding> found;
  for (const Finding& finding : report.findings) {
    if (finding.rule == rule) found.push_back(finding);
  }
  return found;
}

const SoftirqLatencyRow* Row(const Report& report, int cpu, uint32_t vec) {
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    if (row.cpu == cpu && row.vec == vec) return &row;
  }
  return nullptr;
}

// A BlameItem as (kind, id, time) for compact assertions; id is pid, irq or vec.
std::tuple<ContextKind, int64_t, int64_t> Held(const BlameItem& item) {
  int64_t id = item.kind == ContextKind::kTask      ? item.pid
               : item.kind == ContextKind::kHardirq ? item.irq.number
                                                    : item.vec;
  return {item.kind, id, item.time_ns};
}

// 1001 NET_RX waits of 1000, 1010, ..., 11000 ns in a scrambled order. Nearest rank with
// n = 1001: p50 = #501, p90 = #901, p99 = #991, p99.9 = #1000 (999 * 1001 / 1000 = 999.999;
// floating point rounds it up to rank 1001 if computed carelessly).
TEST(SoftirqLatency, NearestRankPercentilesAreExact) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x");
  constexpr int kWaits = 1001;
  TimestampNs max_at = -1;
  for (int k = 0; k < kWaits; ++k) {
    int64_t step = (static_cast<int64_t>(k) * 337) % kWaits;  // 337 is coprime with 1001
    int64_t delay = 1000 + 10 * step;
    TimestampNs raise = 100000 + static_cast<int64_t>(k) * 100000;
    if (step == kWaits - 1) max_at = raise;
    b.Raise(0, raise, kIperf, kNetRx)
        .SoftirqEntry(0, raise + delay, kIperf, kNetRx)
        .SoftirqExit(0, raise + delay + 50, kIperf, kNetRx);
  }
  Report report = Analyze(b);
  const SoftirqLatencyRow* row = Row(report, 0, kNetRx);
  ASSERT_NE(row, nullptr);
  auto value_of_rank = [](int64_t rank) { return 1000 + 10 * (rank - 1); };
  EXPECT_EQ(row->delay.count, kWaits);
  EXPECT_EQ(row->delay.min_ns, 1000);
  EXPECT_EQ(row->delay.p50_ns, value_of_rank(501));
  EXPECT_EQ(row->delay.p90_ns, value_of_rank(901));
  EXPECT_EQ(row->delay.p99_ns, value_of_rank(991));
  EXPECT_EQ(row->delay.p999_ns, value_of_rank(1000));
  EXPECT_EQ(row->delay.max_ns, 11000);
  EXPECT_EQ(row->delay.max_at_ns, max_at);
  EXPECT_TRUE(row->delay.exact);
  EXPECT_EQ(row->dropped_pairs, 0);
  EXPECT_EQ(row->entries_without_raise, 0);
  EXPECT_THAT(row->ran_in, ElementsAre(Pair(SoftirqSite::kTaskBhEnable, kWaits)));
  ASSERT_EQ(row->worst.size(), 5u);
  EXPECT_EQ(row->worst[0].delay_ns, 11000);
  EXPECT_EQ(row->worst[0].raise_ns, max_at);
  EXPECT_EQ(row->worst[4].delay_ns, 10960);
  // Every wait was spent in iperf3 at task level.
  EXPECT_THAT(row->worst[0].blame, ::testing::SizeIs(1));
  EXPECT_EQ(Held(row->worst[0].blame[0]), std::make_tuple(ContextKind::kTask, kIperf, 11000));
}

TEST(SoftirqLatency, ThousandWaitsPutP999AtRank999) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x");
  for (int k = 0; k < 1000; ++k) {
    TimestampNs raise = 1000 + k * 10000;
    b.Raise(0, raise, kIperf, kTimer).SoftirqEntry(0, raise + 1 + k, kIperf, kTimer);
    b.SoftirqExit(0, raise + 2000, kIperf, kTimer);
  }
  Report report = Analyze(b);
  const SoftirqLatencyRow* row = Row(report, 0, kTimer);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->delay.p50_ns, 500);
  EXPECT_EQ(row->delay.p90_ns, 900);
  EXPECT_EQ(row->delay.p99_ns, 990);
  EXPECT_EQ(row->delay.p999_ns, 999);
  EXPECT_EQ(row->delay.max_ns, 1000);
}

TEST(SoftirqLatency, PairsOnlyTheFirstRaiseAndNeverAcrossCpus) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", 1);
  b.Other(0, 0, kIperf, "x")
      .Raise(0, 100, kIperf, kNetRx)
      .Raise(0, 200, kIperf, kNetRx)  // already pending: changes nothing
      .SoftirqEntry(0, 500, kIperf, kNetRx)
      .Raise(0, 550, kIperf, kNetRx)  // while it runs: pending again
      .SoftirqExit(0, 600, kIperf, kNetRx)
      .SoftirqEntry(0, 900, kIperf, kNetRx)
      .SoftirqExit(0, 950, kIperf, kNetRx)
      .SoftirqEntry(0, 1000, kIperf, kNetRx)  // nothing pending: not a pair
      .SoftirqExit(0, 1050, kIperf, kNetRx);
  b.Other(1, 0, kCyclictest, "x")
      .Raise(1, 150, kCyclictest, kNetRx)
      .Other(1, 2000, kCyclictest, "x");
  Report report = Analyze(b);
  const SoftirqLatencyRow* row = Row(report, 0, kNetRx);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->delay.count, 2);
  EXPECT_EQ(row->delay.min_ns, 350);
  EXPECT_EQ(row->delay.max_ns, 400);
  EXPECT_EQ(row->delay.max_at_ns, 100);
  EXPECT_EQ(row->entries_without_raise, 1);
  EXPECT_EQ(Row(report, 1, kNetRx), nullptr);  // raised on CPU1, never entered there
}

TEST(SoftirqLatency, MissedEventsDropThePendingPairs) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x")
      .Raise(0, 100, kIperf, kNetRx)
      .Raise(0, 120, kIperf, kTimer)
      .Missed(0, 500, 7)
      .SoftirqEntry(0, 600, kIperf, kNetRx)  // raised before the gap: unknown, not 500 ns
      .SoftirqExit(0, 650, kIperf, kNetRx)
      .Raise(0, 700, kIperf, kNetRx)
      .SoftirqEntry(0, 800, kIperf, kNetRx)
      .SoftirqExit(0, 850, kIperf, kNetRx);
  Report report = Analyze(b);
  const SoftirqLatencyRow* net_rx = Row(report, 0, kNetRx);
  ASSERT_NE(net_rx, nullptr);
  EXPECT_EQ(net_rx->delay.count, 1);
  EXPECT_EQ(net_rx->delay.max_ns, 100);
  EXPECT_EQ(net_rx->dropped_pairs, 1);
  EXPECT_EQ(net_rx->entries_without_raise, 1);
  const SoftirqLatencyRow* timer = Row(report, 0, kTimer);
  ASSERT_NE(timer, nullptr);
  EXPECT_EQ(timer->delay.count, 0);
  EXPECT_EQ(timer->dropped_pairs, 1);
}

// NET_RX raised in eth0's hard IRQ waits 3400 ns: iperf3 is preempted by cyclictest, a timer
// interrupt and its TIMER softirq come in between, and ksoftirqd finally runs it.
EventBuilder BlameScenario() {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", 1).Task(kKsoftirqd0, "ksoftirqd/0");
  b.Other(0, 0, kIperf, "x")
      .IrqEntry(0, 1000, kIperf, 30, "eth0")
      .Raise(0, 1100, kIperf, kNetRx)
      .IrqExit(0, 1200, kIperf, 30)
      .Switch(0, 1300, kIperf, kStatePreempted, kCyclictest)
      .VectorEntry(0, 2000, kCyclictest, "local_timer", 236)
      .Raise(0, 2500, kCyclictest, kTimer)
      .VectorExit(0, 2600, kCyclictest, "local_timer", 236)
      .SoftirqEntry(0, 2600, kCyclictest, kTimer)
      .SoftirqExit(0, 2900, kCyclictest, kTimer)
      .Switch(0, 4300, kCyclictest, kStateInterruptible, kKsoftirqd0)
      .SoftirqEntry(0, 4500, kKsoftirqd0, kNetRx)
      .SoftirqExit(0, 5000, kKsoftirqd0, kNetRx);
  return b;
}

TEST(SoftirqLatency, BlamesWhatHeldTheCpuLargestFirst) {
  EventBuilder b = BlameScenario();
  Report report = Analyze(b);
  const SoftirqLatencyRow* net_rx = Row(report, 0, kNetRx);
  ASSERT_NE(net_rx, nullptr);
  ASSERT_EQ(net_rx->worst.size(), 1u);
  const SoftirqWait& wait = net_rx->worst[0];
  EXPECT_EQ(wait.raise_ns, 1100);
  EXPECT_EQ(wait.entry_ns, 4500);
  EXPECT_EQ(wait.delay_ns, 3400);
  EXPECT_EQ(wait.ran_in, SoftirqSite::kKsoftirqd);
  EXPECT_EQ(wait.unknown_ns, 0);
  std::vector<std::tuple<ContextKind, int64_t, int64_t>> held;
  for (const BlameItem& item : wait.blame) held.push_back(Held(item));
  using K = ContextKind;
  EXPECT_THAT(
      held,
      ElementsAre(std::make_tuple(K::kTask, kCyclictest, 2100),
                  std::make_tuple(K::kHardirq, 236, 600), std::make_tuple(K::kSoftirq, kTimer, 300),
                  std::make_tuple(K::kTask, kKsoftirqd0, 200),
                  std::make_tuple(K::kHardirq, 30, 100), std::make_tuple(K::kTask, kIperf, 100)));
  EXPECT_EQ(wait.blame[0].name, "cyclictest");
  EXPECT_EQ(wait.blame[0].prio, 1);
  EXPECT_EQ(wait.blame[1].name, "local_timer");
  EXPECT_TRUE(wait.blame[1].irq.x86_vector);
  EXPECT_FALSE(wait.blame[4].irq.x86_vector);  // IRQ 30, a device's
  EXPECT_EQ(wait.blame[2].name, "TIMER");
  EXPECT_THAT(net_rx->ran_in, ElementsAre(Pair(SoftirqSite::kKsoftirqd, 1)));

  const SoftirqLatencyRow* timer = Row(report, 0, kTimer);
  ASSERT_NE(timer, nullptr);
  EXPECT_EQ(timer->delay.max_ns, 100);
  EXPECT_THAT(timer->ran_in, ElementsAre(Pair(SoftirqSite::kIrqExit, 1)));
  ASSERT_EQ(timer->worst.size(), 1u);
  ASSERT_EQ(timer->worst[0].blame.size(), 1u);
  EXPECT_EQ(Held(timer->worst[0].blame[0]), std::make_tuple(K::kHardirq, 236, 100));
}

// Before a CPU's first sched_switch the tracker holds its segments back; a wait that begins
// and ends in that stretch still gets its blame once they arrive.
TEST(SoftirqLatency, BlameArrivesAfterTheEntryDuringWarmUp) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kCyclictest, "cyclictest", 1);
  b.Other(0, 0, kIperf, "x")
      .Raise(0, 100, kIperf, kNetRx)
      .VectorEntry(0, 150, kIperf, "local_timer", 236)
      .VectorExit(0, 230, kIperf, "local_timer", 236)
      .SoftirqEntry(0, 300, kIperf, kNetRx)
      .SoftirqExit(0, 400, kIperf, kNetRx)
      .Switch(0, 500, kIperf, kStateInterruptible, kCyclictest);
  Report report = Analyze(b);
  const SoftirqLatencyRow* row = Row(report, 0, kNetRx);
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->worst.size(), 1u);
  std::vector<std::tuple<ContextKind, int64_t, int64_t>> held;
  for (const BlameItem& item : row->worst[0].blame) held.push_back(Held(item));
  EXPECT_THAT(held, ElementsAre(std::make_tuple(ContextKind::kTask, kIperf, 120),
                                std::make_tuple(ContextKind::kHardirq, 236, 80)));
}

TEST(SoftirqLatency, CountsWhereTheSoftirqRan) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3").Task(kKsoftirqd0, "ksoftirqd/0").Task(300, "irq/30-eth0", 49);
  b.Task(400, "napi/eth0-8193");
  b.Other(0, 0, kIperf, "x")
      .IrqEntry(0, 10, kIperf, 30, "eth0")
      .Raise(0, 15, kIperf, kNetRx)
      .IrqExit(0, 20, kIperf, 30)
      .SoftirqEntry(0, 20, kIperf, kNetRx)  // at IRQ exit
      .SoftirqExit(0, 30, kIperf, kNetRx)
      .Other(0, 35, kIperf, "net_dev_xmit")  // back in the task: the IRQ tail is over
      .Raise(0, 40, kIperf, kNetRx)
      .SoftirqEntry(0, 45, kIperf, kNetRx)  // local_bh_enable in iperf3
      .SoftirqExit(0, 50, kIperf, kNetRx)
      .Raise(0, 55, kIperf, kNetRx)
      .Switch(0, 60, kIperf, 0, kKsoftirqd0)
      .SoftirqEntry(0, 70, kKsoftirqd0, kNetRx)
      .SoftirqExit(0, 80, kKsoftirqd0, kNetRx)
      .Raise(0, 85, kKsoftirqd0, kNetRx)
      .Switch(0, 90, kKsoftirqd0, kStateInterruptible, 300)
      .SoftirqEntry(0, 100, 300, kNetRx)
      .SoftirqExit(0, 110, 300, kNetRx)
      .Raise(0, 115, 300, kNetRx)
      .Switch(0, 120, 300, kStateInterruptible, 400)
      .SoftirqEntry(0, 130, 400, kNetRx)
      .SoftirqExit(0, 140, 400, kNetRx);
  Report report = Analyze(b);
  const SoftirqLatencyRow* row = Row(report, 0, kNetRx);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->delay.count, 5);
  EXPECT_THAT(row->ran_in,
              ElementsAre(Pair(SoftirqSite::kIrqExit, 1), Pair(SoftirqSite::kTaskBhEnable, 1),
                          Pair(SoftirqSite::kIrqThread, 1), Pair(SoftirqSite::kKsoftirqd, 1),
                          Pair(SoftirqSite::kNapiKthread, 1)));
  EXPECT_EQ(row->delay.min_ns, 5);
  EXPECT_EQ(row->delay.max_ns, 15);
  EXPECT_EQ(row->delay.max_at_ns, 55);
}

TEST(SoftirqLatency, WindowCountsWaitsRaisedInsideIt) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x");
  for (int k = 0; k < 10; ++k) {
    TimestampNs raise = 1000 * (k + 1);
    b.Raise(0, raise, kIperf, kNetRx)
        .SoftirqEntry(0, raise + 10 * (k + 1), kIperf, kNetRx)
        .SoftirqExit(0, raise + 200, kIperf, kNetRx);
  }
  AnalysisOptions options;
  options.window.from_ns = 3000;  // raises at 3000 .. 6000: delays 30 .. 60
  options.window.to_ns = 6000;
  Report report = Analyze(b, options);
  const SoftirqLatencyRow* row = Row(report, 0, kNetRx);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->delay.count, 4);
  EXPECT_EQ(row->delay.min_ns, 30);
  EXPECT_EQ(row->delay.max_ns, 60);
  EXPECT_EQ(row->delay.max_at_ns, 6000);
  EXPECT_EQ(row->worst.front().raise_ns, 6000);
}

TEST(SoftirqLatency, FindingCarriesTheNumbersAndTheBlame) {
  EventBuilder b = BlameScenario();
  AnalysisOptions options;
  options.thresholds.softirq_latency_p99_warning_ns = 1000;
  options.thresholds.softirq_latency_max_error_ns = 3000;
  std::vector<Finding> findings = FindingsOf(Analyze(b, options), "softirq-latency");
  ASSERT_EQ(findings.size(), 1u);
  const Finding& finding = findings[0];
  EXPECT_EQ(finding.severity, Severity::kError);
  EXPECT_EQ(finding.cpu, 0);
  EXPECT_EQ(finding.start_ns, 1100);
  EXPECT_EQ(finding.end_ns, 4500);
  EXPECT_EQ(finding.summary,
            "NET_RX on CPU0 waited up to 3.4 us (p99 3.4 us, 1 wait) — held by cyclictest "
            "(pid 200, RT 98) 2.1 us, x86 vector local_timer (236) 600 ns");
  EXPECT_EQ(finding.evidence["max_ns"], 3400);
  EXPECT_EQ(finding.evidence["max_threshold_ns"], 3000);
  EXPECT_EQ(finding.evidence["blame"][0]["time_ns"], 2100);

  options.thresholds.softirq_latency_max_error_ns = 0;  // disabled: only the p99 warning
  findings = FindingsOf(Analyze(b, options), "softirq-latency");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::kWarning);

  EXPECT_THAT(FindingsOf(Analyze(b), "softirq-latency"), ::testing::IsEmpty());  // 1 ms / 5 ms
}

TEST(SoftirqLatency, MissingRaiseEventsAreSaidNotSilent) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x")
      .SoftirqEntry(0, 10, kIperf, kNetRx)
      .SoftirqExit(0, 20, kIperf, kNetRx)
      .Switch(0, 30, kIperf, kStateInterruptible, kIperf);
  Report report = Analyze(b);
  const AnalysisAvailability* availability = report.Availability("softirq_latency");
  ASSERT_NE(availability, nullptr);
  EXPECT_FALSE(availability->available);
  std::vector<Finding> unavailable = FindingsOf(report, "analysis-unavailable");
  auto latency = std::find_if(unavailable.begin(), unavailable.end(), [](const Finding& f) {
    return f.evidence["analysis"] == "softirq_latency";
  });
  ASSERT_NE(latency, unavailable.end());
  EXPECT_EQ(latency->severity, Severity::kInfo);
  EXPECT_EQ(latency->summary,
            "softirq raise-to-entry latency was not analysed: the trace has no "
            "irq:softirq_raise events");
  EXPECT_EQ(latency->evidence["missing_events"], nlohmann::json::array({"irq:softirq_raise"}));
}

}  // namespace
}  // namespace napiscope
