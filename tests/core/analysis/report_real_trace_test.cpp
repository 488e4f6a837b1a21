// The report on the bundled real recordings, checked against references computed here from the
// raw event list with plain loops that share no code with the analyses.
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

class KeepAll : public EventSink {
 public:
  void OnEvent(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

struct Expected {
  std::vector<int64_t> delays;
  TimestampNs max_at = 0;
  int64_t dropped = 0;
  int64_t entries_without_raise = 0;
};

// docs/definitions.md: the first raise since the vector last entered on that CPU pairs with the next
// entry of that vector on that CPU; lost events on the CPU forget what was pending.
std::map<std::pair<int, uint32_t>, Expected> ReferenceLatency(const std::vector<Event>& events) {
  std::map<std::pair<int, uint32_t>, Expected> expected;
  std::map<std::pair<int, uint32_t>, TimestampNs> pending;
  for (const Event& e : events) {
    if (e.kind == EventKind::kMissedEvents) {
      for (auto it = pending.begin(); it != pending.end();) {
        if (it->first.first == e.cpu) {
          ++expected[it->first].dropped;
          it = pending.erase(it);
        } else {
          ++it;
        }
      }
      continue;
    }
    if (e.kind != EventKind::kSoftirqRaise && e.kind != EventKind::kSoftirqEntry) continue;
    std::pair<int, uint32_t> key{e.cpu, e.softirq.vec};
    if (e.kind == EventKind::kSoftirqRaise) {
      pending.emplace(key, e.ts_ns);  // no-op when already pending
      continue;
    }
    auto it = pending.find(key);
    Expected& row = expected[key];
    if (it == pending.end()) {
      ++row.entries_without_raise;
      continue;
    }
    int64_t delay = e.ts_ns - it->second;
    if (row.delays.empty() || delay > *std::max_element(row.delays.begin(), row.delays.end())) {
      row.max_at = it->second;
    }
    row.delays.push_back(delay);
    pending.erase(it);
  }
  return expected;
}

int64_t Percentile(std::vector<int64_t> sorted_copy, int per_mille) {
  std::sort(sorted_copy.begin(), sorted_copy.end());
  size_t n = sorted_copy.size();
  size_t rank = (per_mille * n + 999) / 1000;
  return sorted_copy[rank - 1];
}

class ReportOnRealTrace : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string path = testing::TestData("real/" + GetParam() + ".dat");
    TraceContext context;
    ASSERT_TRUE(LoadTrace(path, context, raw_).ok());
    ASSERT_TRUE(AnalyzeTrace(path, {}, &report_).ok());
  }
  KeepAll raw_;
  Report report_;
};

TEST_P(ReportOnRealTrace, SoftirqLatencyMatchesAPlainLoopOverTheEvents) {
  auto expected = ReferenceLatency(raw_.events);
  ASSERT_EQ(report_.softirq_latency.size(), expected.size());
  int64_t pairs = 0;
  for (const SoftirqLatencyRow& row : report_.softirq_latency) {
    SCOPED_TRACE(::testing::Message() << "cpu " << row.cpu << " vec " << row.vec);
    auto it = expected.find({row.cpu, row.vec});
    ASSERT_NE(it, expected.end());
    const Expected& want = it->second;
    EXPECT_EQ(row.delay.count, static_cast<int64_t>(want.delays.size()));
    EXPECT_EQ(row.dropped_pairs, want.dropped);
    EXPECT_EQ(row.entries_without_raise, want.entries_without_raise);
    pairs += row.delay.count;
    if (want.delays.empty()) continue;
    EXPECT_EQ(row.delay.max_ns, *std::max_element(want.delays.begin(), want.delays.end()));
    EXPECT_EQ(row.delay.max_at_ns, want.max_at);
    EXPECT_EQ(row.delay.min_ns, *std::min_element(want.delays.begin(), want.delays.end()));
    EXPECT_EQ(row.delay.p50_ns, Percentile(want.delays, 500));
    EXPECT_EQ(row.delay.p90_ns, Percentile(want.delays, 900));
    EXPECT_EQ(row.delay.p99_ns, Percentile(want.delays, 990));
    EXPECT_EQ(row.delay.p999_ns, Percentile(want.delays, 999));
    int64_t ran_in = 0;
    for (const auto& [site, count] : row.ran_in) ran_in += count;
    EXPECT_EQ(ran_in, row.delay.count);
    ASSERT_FALSE(row.worst.empty());
    EXPECT_EQ(row.worst[0].delay_ns, row.delay.max_ns);
    EXPECT_EQ(row.worst[0].raise_ns, row.delay.max_at_ns);
    for (const SoftirqWait& wait : row.worst) {
      int64_t held = wait.unknown_ns;
      for (const BlameItem& item : wait.blame) held += item.time_ns;
      EXPECT_EQ(held, wait.delay_ns) << "blame must cover the wait at " << wait.raise_ns;
    }
  }
  // Pairs counted by a third path: a script over `trace-cmd report` output.
  const std::map<std::string, int64_t> kPairs = {{"idle", 103},
                                                 {"short-v6", 1911},
                                                 {"veth-softirq-napi", 18234},
                                                 {"veth-threaded-napi", 6552}};
  EXPECT_EQ(pairs, kPairs.at(GetParam()));
}

TEST_P(ReportOnRealTrace, CpuTimeAddsUpToTheSpanMinusUnknown) {
  std::map<int, std::pair<TimestampNs, TimestampNs>> span;
  for (const Event& e : raw_.events) {
    if (e.kind == EventKind::kMissedEvents) continue;
    auto [it, inserted] = span.try_emplace(e.cpu, e.ts_ns, e.ts_ns);
    it->second.second = e.ts_ns;
  }
  ASSERT_EQ(report_.cpu_time.size(), span.size());
  for (const CpuTimeRow& row : report_.cpu_time) {
    SCOPED_TRACE(::testing::Message() << "cpu " << row.cpu);
    EXPECT_EQ(row.first_ts_ns, span[row.cpu].first);
    EXPECT_EQ(row.last_ts_ns, span[row.cpu].second);
    EXPECT_EQ(row.span_ns, row.last_ts_ns - row.first_ts_ns);
    EXPECT_NEAR(row.AccountedNs(), row.span_ns - row.unknown_ns, 1000);  // the check asks 1 us
    EXPECT_EQ(row.AccountedNs(), row.span_ns - row.unknown_ns);          // it is exact
  }
}

INSTANTIATE_TEST_SUITE_P(AllRealTraces, ReportOnRealTrace,
                         ::testing::Values("idle", "short-v6", "veth-softirq-napi",
                                           "veth-threaded-napi"));

}  // namespace
}  // namespace napiscope
