#include "napiscope/timeline.h"

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "napiscope/timeline_builder.h"
#include "support/event_builder.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::BuildStandaloneTimeline;
using ::napiscope::testing::EventBuilder;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using Span = std::tuple<TimestampNs, TimestampNs>;

constexpr int32_t kIperf = 100;
constexpr int32_t kOther = 200;
constexpr int32_t kIrqThread = 300;
constexpr int32_t kNapiThread = 400;
constexpr int32_t kKsoftirqd1 = 20;

// Keeps the tracker's intervals and gaps, to compare with the timeline's lanes.
class Recorder : public ContextListener {
 public:
  void OnInterval(const ContextInterval& interval) override { intervals.push_back(interval); }
  std::vector<ContextInterval> intervals;
};

// Plays `builder` through a tracker into a TimelineBuilder (and `recorder` when given).
Timeline Build(EventBuilder& builder, Recorder* recorder = nullptr) {
  return BuildStandaloneTimeline([&](EventSink& sink) { builder.Play(sink); }, recorder);
}

std::vector<Span> Spans(const Timeline& timeline, int cpu, Lane lane) {
  std::vector<Span> spans;
  const TimelineLane& intervals = timeline.lane(cpu, lane);
  for (size_t i = 0; i < intervals.size(); ++i) {
    spans.emplace_back(intervals.At(i).start_ns, intervals.At(i).end_ns);
  }
  return spans;
}

// The lane a tracker interval belongs on, or false for idle time (not drawn).
bool LaneOf(const ContextInterval& interval, Lane* lane) {
  switch (interval.frame.kind) {
    case ContextKind::kTask:
      *lane = Lane::kTask;
      return interval.frame.task_class != TaskClass::kIdle;
    case ContextKind::kHardirq:
      *lane = Lane::kHardirq;
      return true;
    case ContextKind::kSoftirq:
      *lane = Lane::kSoftirq;
      return true;
    case ContextKind::kNapiPoll:
      *lane = Lane::kNapiPoll;
      return true;
  }
  return false;
}

// Per (cpu, lane), the tracker's intervals sorted as the lane sorts them.
std::map<std::pair<int, Lane>, std::vector<Span>> TrackerSpans(const Recorder& recorder) {
  std::map<std::pair<int, Lane>, std::vector<Span>> spans;
  for (const ContextInterval& interval : recorder.intervals) {
    Lane lane;
    if (!LaneOf(interval, &lane)) continue;
    spans[{interval.frame.cpu, lane}].emplace_back(interval.frame.start_ns, interval.end_ns);
  }
  for (auto& [key, list] : spans) {
    std::sort(list.begin(), list.end(), [](const Span& a, const Span& b) {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                              : std::get<1>(a) > std::get<1>(b);
    });
  }
  return spans;
}

void ExpectLanesEqualTracker(const Timeline& timeline, const Recorder& recorder) {
  auto expected = TrackerSpans(recorder);
  for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
    for (Lane lane : {Lane::kTask, Lane::kHardirq, Lane::kSoftirq, Lane::kNapiPoll}) {
      EXPECT_EQ(Spans(timeline, cpu, lane), (expected[{cpu, lane}]))
          << "cpu " << cpu << " lane " << LaneName(lane);
    }
  }
}

// Two CPUs: NET_RX at IRQ exit on CPU0, an IRQ thread woken across CPUs, threaded NAPI on CPU1.
EventBuilder TwoCpuScenario() {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3").Task(kOther, "cyclictest", 1).Task(kIrqThread, "irq/354-4848400", 49);
  b.Task(kNapiThread, "napi/eth0-8193").Task(kKsoftirqd1, "ksoftirqd/1");
  b.Other(0, 0, kIperf, "x")
      .Other(1, 0, 0, "x")
      .IrqEntry(0, 100, kIperf, 30, "eth0")
      .Raise(0, 110, kIperf, kNetRx)
      .Raise(0, 120, kIperf, kNetRx)  // already pending: changes nothing
      .Waking(0, 130, kIperf, kNapiThread, 1)
      .IrqExit(0, 150, kIperf, 30)
      .SoftirqEntry(0, 160, kIperf, kNetRx)
      .NapiPoll(0, 260, kIperf, 0xabc, "eth0", 64, 64)
      .SoftirqExit(0, 300, kIperf, kNetRx)
      .Switch(1, 310, 0, 0, kNapiThread)
      .NapiPoll(1, 400, kNapiThread, 0xdef, "eth1", 3, 64)
      .Switch(1, 450, kNapiThread, kStateInterruptible, 0)
      .IrqEntry(0, 500, kIperf, 354, "4848400")
      .IrqExit(0, 510, kIperf, 354)
      .Switch(1, 600, 0, 0, kIrqThread)
      .Switch(1, 700, kIrqThread, kStateInterruptible, 0)
      .IrqEntry(1, 800, 0, 354, "4848400")
      .IrqExit(1, 810, 0, 354)
      .Switch(1, 820, 0, 0, kIrqThread)
      .Switch(1, 900, kIrqThread, kStateInterruptible, 0)
      .Switch(0, 1000, kIperf, kStatePreempted, kOther)
      .Other(0, 1100, kOther, "x")
      .Other(1, 1100, 0, "x");
  return b;
}

TEST(Timeline, LanesHoldWhatTheTrackerEmits) {
  EventBuilder b = TwoCpuScenario();
  Recorder recorder;
  Timeline timeline = Build(b, &recorder);
  ASSERT_EQ(timeline.cpus(), 2);
  ExpectLanesEqualTracker(timeline, recorder);
  EXPECT_THAT(Spans(timeline, 0, Lane::kTask), ElementsAre(Span{0, 1000}, Span{1000, 1100}));
  EXPECT_THAT(Spans(timeline, 0, Lane::kHardirq), ElementsAre(Span{100, 150}, Span{500, 510}));
  EXPECT_THAT(Spans(timeline, 1, Lane::kTask),
              ElementsAre(Span{310, 450}, Span{600, 700}, Span{820, 900}));
  EXPECT_EQ(timeline.start_ns(), 0);
  EXPECT_EQ(timeline.end_ns(), 1100);
  EXPECT_EQ(timeline.events(), static_cast<int64_t>(b.events().size()));
}

TEST(Timeline, ItemsCarryWhatTooltipsShow) {
  EventBuilder b = TwoCpuScenario();
  Timeline timeline = Build(b);
  const TimelineItem& softirq = timeline.items()[timeline.lane(0, Lane::kSoftirq).At(0).item];
  EXPECT_EQ(softirq.vec, kNetRx);
  EXPECT_EQ(softirq.site, SoftirqSite::kIrqExit);
  EXPECT_EQ(softirq.pid, kIperf);
  EXPECT_EQ(b.context().strings.Get(softirq.name), "iperf3");
  EXPECT_EQ(softirq.key, kNetRx);

  const TimelineItem& exhausted = timeline.items()[timeline.lane(0, Lane::kNapiPoll).At(0).item];
  EXPECT_EQ(exhausted.work, 64);
  EXPECT_TRUE(exhausted.flags & kItemExhausted);
  const TimelineItem& light = timeline.items()[timeline.lane(1, Lane::kNapiPoll).At(0).item];
  EXPECT_FALSE(light.flags & kItemExhausted);
  EXPECT_EQ(light.site, SoftirqSite::kNapiKthread);
  EXPECT_EQ(timeline.KeyLabel(Lane::kNapiPoll, light.key, b.context().strings), "eth1");

  const TimelineItem& irq_thread = timeline.items()[timeline.lane(1, Lane::kTask).At(1).item];
  EXPECT_EQ(irq_thread.task_class, TaskClass::kIrqThread);
  EXPECT_EQ(irq_thread.key, static_cast<uint16_t>(TaskClass::kIrqThread));
  const TimelineItem& hardirq = timeline.items()[timeline.lane(0, Lane::kHardirq).At(1).item];
  EXPECT_EQ(timeline.KeyLabel(Lane::kHardirq, hardirq.key, b.context().strings), "354 4848400");
  EXPECT_EQ(timeline.KeyLabel(Lane::kSoftirq, kNetRx, b.context().strings), "NET_RX");
}

TEST(Timeline, WaitPairsTheFirstRaiseSinceTheLastEntryWithTheNextEntry) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x")
      .Raise(0, 10, kIperf, kTimer)
      .Raise(0, 20, kIperf, kTimer)
      .Raise(1, 25, kIperf, kSched)  // never entered on CPU1: no wait
      .SoftirqEntry(0, 30, kIperf, kTimer)
      .Raise(0, 35, kIperf, kTimer)  // raised while running: pairs with the next entry
      .SoftirqExit(0, 40, kIperf, kTimer)
      .SoftirqEntry(0, 50, kIperf, kTimer)
      .SoftirqExit(0, 60, kIperf, kTimer)
      .SoftirqEntry(0, 70, kIperf, kTimer)  // entry without a raise: no wait
      .SoftirqExit(0, 80, kIperf, kTimer)
      .Raise(0, 90, kIperf, kSched)
      .SoftirqEntry(0, 95, kIperf, kSched)  // SCHED entry on CPU0: not CPU1's raise
      .SoftirqExit(0, 99, kIperf, kSched);
  Timeline timeline = Build(b);
  EXPECT_THAT(Spans(timeline, 0, Lane::kSoftirqWait),
              ElementsAre(Span{10, 30}, Span{35, 50}, Span{90, 95}));
  EXPECT_TRUE(timeline.lane(1, Lane::kSoftirqWait).empty());
  EXPECT_EQ(timeline.items()[timeline.lane(0, Lane::kSoftirqWait).At(2).item].vec, kSched);
}

TEST(Timeline, NoWaitAcrossMissedEvents) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x")
      .Raise(0, 10, kIperf, kNetRx)
      .Missed(0, 500, 12)
      .Other(0, 500, kIperf, "x")
      .SoftirqEntry(0, 520, kIperf, kNetRx)
      .SoftirqExit(0, 530, kIperf, kNetRx);
  Timeline timeline = Build(b);
  EXPECT_TRUE(timeline.lane(0, Lane::kSoftirqWait).empty());
  ASSERT_EQ(timeline.gaps(0).size(), 1u);
  EXPECT_EQ(timeline.gaps(0)[0].start_ns, 10);
  EXPECT_EQ(timeline.gaps(0)[0].end_ns, 500);
  EXPECT_EQ(timeline.gaps(0)[0].lost_events, 12);
}

TEST(Timeline, ActivationsPairHardIrqsAndWakingsWithTheNextSwitchIn) {
  EventBuilder b = TwoCpuScenario();
  Timeline timeline = Build(b);
  const std::vector<Activation>& all = timeline.activations();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].kind, ActivationKind::kNapiKthread);
  EXPECT_EQ(all[0].from_ns, 130);
  EXPECT_EQ(all[0].to_ns, 310);
  EXPECT_TRUE(all[0].cross_cpu());
  EXPECT_EQ(all[1].kind, ActivationKind::kIrqThread);
  EXPECT_EQ(all[1].irq, 354);
  EXPECT_EQ(all[1].from_ns, 500);
  EXPECT_EQ(all[1].from_cpu, 0);
  EXPECT_EQ(all[1].to_cpu, 1);
  EXPECT_EQ(all[2].from_ns, 800);
  EXPECT_FALSE(all[2].cross_cpu());
  std::vector<Activation> arrows = timeline.CrossCpuArrows(0, 1100, 100);
  ASSERT_EQ(arrows.size(), 2u);
  EXPECT_EQ(arrows[1].to_ns, 600);
}

TEST(Timeline, AnIrqWhileItsThreadRunsIsNoActivation) {
  EventBuilder b(2);
  b.Task(kIrqThread, "irq/354-4848400", 49).Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x")
      .Other(1, 0, 0, "x")
      .Switch(1, 10, 0, 0, kIrqThread)
      .IrqEntry(0, 20, kIperf, 354, "4848400")  // thread still running on CPU1
      .IrqExit(0, 25, kIperf, 354)
      .Switch(1, 30, kIrqThread, kStateInterruptible, 0)
      .Switch(1, 90, 0, 0, kIrqThread);  // woken by something else
  Timeline timeline = Build(b);
  EXPECT_TRUE(timeline.activations().empty());
}

TEST(Timeline, FilterMasksItemsOfTheirOwnLane) {
  EventBuilder b = TwoCpuScenario();
  Timeline timeline = Build(b);
  TimelineFilter filter;
  filter.vecs = {kTimer};
  filter.irqs = {354};
  ItemMask mask = timeline.MatchingItems(filter);
  EXPECT_TRUE(mask.lane_filtered[static_cast<int>(Lane::kSoftirq)]);
  EXPECT_TRUE(mask.lane_filtered[static_cast<int>(Lane::kHardirq)]);
  EXPECT_FALSE(mask.lane_filtered[static_cast<int>(Lane::kTask)]);
  LaneSlice softirq = timeline.Query(0, Lane::kSoftirq, 0, 1100, 100, &mask);
  EXPECT_TRUE(softirq.intervals.empty());
  LaneSlice hardirq = timeline.Query(0, Lane::kHardirq, 0, 1100, 100, &mask);
  ASSERT_EQ(hardirq.intervals.size(), 1u);
  EXPECT_EQ(hardirq.intervals[0].start_ns, 500);
  LaneSlice tasks = timeline.Query(1, Lane::kTask, 0, 1100, 100, &mask);
  EXPECT_EQ(tasks.intervals.size(), 3u);  // no pid filter

  std::vector<uint8_t> named = timeline.NamedItems(filter);
  for (size_t i = 0; i < named.size(); ++i) {
    const TimelineItem& item = timeline.items()[i];
    bool expected =
        (item.lane == Lane::kHardirq && item.irq == InterruptId{354, false}) ||
        ((item.lane == Lane::kSoftirq || item.lane == Lane::kSoftirqWait) && item.vec == kTimer);
    EXPECT_EQ(named[i] != 0, expected) << i;
  }
}

// A finding's interrupt goes to the filter's list of its number space (the GUI's and the HTML
// report's picture of a finding); none known, none added.
TEST(TimelineFilter, AnInterruptGoesToTheListOfItsNumberSpace) {
  TimelineFilter filter;
  filter.AddInterrupt({41, false});
  filter.AddInterrupt({236, true});
  filter.AddInterrupt({});
  EXPECT_EQ(filter.irqs, std::vector<int32_t>{41});
  EXPECT_EQ(filter.x86_vectors, std::vector<int32_t>{236});
  EXPECT_FALSE(filter.empty());
  TimelineFilter none;
  none.AddInterrupt({});
  EXPECT_TRUE(none.empty());
}

// A NIC queue's IRQ 236 and the local timer's vector 236 are two handlers; filtering by one
// hides the other (both showed when the filter held the number alone).
TEST(Timeline, AnIrqFilterTellsADeviceIrqFromAnX86VectorOfItsNumber) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3");
  b.Other(0, 0, kIperf, "x").Other(1, 0, 0, "x");
  b.IrqEntry(0, 100, kIperf, 236, "eth1-rx-3").IrqExit(0, 110, kIperf, 236);
  b.VectorEntry(1, 200, 0, "local_timer", 236).VectorExit(1, 210, 0, "local_timer", 236);
  Timeline timeline = Build(b);
  ASSERT_EQ(timeline.handlers().size(), 2u);
  EXPECT_NE(timeline.handlers()[0].irq.x86_vector, timeline.handlers()[1].irq.x86_vector);
  // What the GUI's IRQ filter lists, and the tooltips' titles (GUI and HTML).
  std::vector<std::string> labels, titles;
  for (uint16_t key : {0, 1}) {
    labels.push_back(timeline.KeyLabel(Lane::kHardirq, key, b.context().strings));
    titles.push_back(timeline.HardirqTitle(key));
  }
  EXPECT_THAT(labels, UnorderedElementsAre("236 eth1-rx-3", "x86 vector 236 local_timer"));
  EXPECT_THAT(titles, UnorderedElementsAre("hard IRQ 236", "x86 vector 236"));
  for (bool vector : {false, true}) {
    TimelineFilter filter;
    (vector ? filter.x86_vectors : filter.irqs).push_back(236);
    ItemMask mask = timeline.MatchingItems(filter);
    LaneSlice nic = timeline.Query(0, Lane::kHardirq, 0, 1000, 100, &mask);
    LaneSlice timer = timeline.Query(1, Lane::kHardirq, 0, 1000, 100, &mask);
    EXPECT_EQ(nic.intervals.size(), vector ? 0u : 1u) << vector;
    EXPECT_EQ(timer.intervals.size(), vector ? 1u : 0u) << vector;
  }
}

// --- TimelineLane: packing and the level-of-detail pyramid, against brute force.

struct Synthetic {
  std::vector<TimelineLane::Entry> entries;
  std::vector<LaneItemTraits> traits;
};

// Non-overlapping intervals with random gaps and lengths; item i % 7, items 3 marked; a few
// intervals longer than 4.29 s and a hole longer than 4.29 s to exercise the escapes.
Synthetic MakeSynthetic(size_t count, uint32_t seed) {
  Synthetic s;
  for (uint16_t item = 0; item < 7; ++item)
    s.traits.push_back({static_cast<uint16_t>(item * 10), item == 3});
  std::mt19937 random(seed);
  TimestampNs ts = 1000;
  for (size_t i = 0; i < count; ++i) {
    ts += random() % 2000;
    if (i == count / 3) ts += 6'000'000'000;  // a hole longer than a uint32 offset
    TimestampNs length = random() % 3000;
    if (i % 5000 == 17) length = 5'000'000'000;
    s.entries.push_back({ts, ts + length, static_cast<uint32_t>(i % 7)});
    ts += length;
  }
  return s;
}

TEST(TimelineLane, PacksAndFindsIntervals) {
  Synthetic s = MakeSynthetic(20000, 1);
  std::vector<TimelineLane::Entry> shuffled = s.entries;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  TimelineLane lane;
  lane.Build(shuffled, s.traits);
  ASSERT_EQ(lane.size(), s.entries.size());
  for (size_t i = 0; i < s.entries.size(); i += 1) {
    ASSERT_EQ(lane.At(i).start_ns, s.entries[i].start_ns) << i;
    ASSERT_EQ(lane.At(i).end_ns, s.entries[i].end_ns) << i;
    ASSERT_EQ(lane.At(i).item, s.entries[i].item) << i;
  }
  for (TimestampNs probe : {TimestampNs{0}, s.entries[5].start_ns, s.entries[5].start_ns + 1,
                            s.entries[12345].start_ns, s.entries.back().start_ns + 1}) {
    auto expected = std::lower_bound(
        s.entries.begin(), s.entries.end(), probe,
        [](const TimelineLane::Entry& e, TimestampNs ts) { return e.start_ns < ts; });
    size_t index = static_cast<size_t>(expected - s.entries.begin());
    EXPECT_EQ(lane.LowerBound(probe), index);
    if (index > 40) {
      EXPECT_EQ(lane.LowerBound(probe, index - 40), index);
    }
  }
  EXPECT_LE(lane.BytesUsed(), s.entries.size() * 16);
}

TEST(TimelineLane, SummariesMatchBruteForce) {
  Synthetic s = MakeSynthetic(5000, 2);
  TimelineLane lane;
  lane.Build(s.entries, s.traits);
  std::mt19937 random(3);
  for (int trial = 0; trial < 200; ++trial) {
    size_t begin = random() % s.entries.size();
    size_t end = begin + random() % (s.entries.size() - begin + 1);
    TimelineColumn column = lane.Summarize(begin, end, s.traits);
    TimelineColumn expected;
    for (size_t i = begin; i < end; ++i) {
      TimestampNs duration = s.entries[i].end_ns - s.entries[i].start_ns;
      ++expected.count;
      expected.busy_ns += duration;
      expected.longest_ns = std::max(expected.longest_ns, duration);
      expected.marked += s.traits[s.entries[i].item].marked ? 1 : 0;
    }
    ASSERT_EQ(column.count, expected.count) << begin << ".." << end;
    ASSERT_EQ(column.busy_ns, expected.busy_ns) << begin << ".." << end;
    ASSERT_EQ(column.longest_ns, expected.longest_ns) << begin << ".." << end;
    ASSERT_EQ(column.marked, expected.marked) << begin << ".." << end;
  }
}

TEST(TimelineLane, DominantKeyIsTheKeyWithTheMostTime) {
  std::vector<LaneItemTraits> traits = {{5, false}, {9, false}};
  std::vector<TimelineLane::Entry> entries;
  for (int i = 0; i < 256; ++i) {
    TimestampNs length = i % 4 == 0 ? 100 : 10;  // item 1: a quarter of them, but most time
    entries.push_back({i * 1000, i * 1000 + length, i % 4 == 0 ? 1u : 0u});
  }
  TimelineLane lane;
  lane.Build(entries, traits);
  EXPECT_EQ(lane.Summarize(0, 256, traits).dominant_key, 9);
  EXPECT_EQ(lane.Summarize(1, 4, traits).dominant_key, 5);
}

TEST(TimelineLane, AggregatedQueryAccountsForEveryInterval) {
  Synthetic s = MakeSynthetic(20000, 4);
  TimelineLane lane;
  lane.Build(s.entries, s.traits);
  TimestampNs from = s.entries[100].start_ns + 7;
  TimestampNs to = s.entries[5000].start_ns;
  const int columns = 400;
  LaneSlice slice = lane.Query(from, to, columns, s.traits);
  ASSERT_TRUE(slice.aggregated);
  ASSERT_EQ(slice.columns.size(), static_cast<size_t>(columns));
  // Every interval starting in range is either in a column or drawn whole; wide ones are whole.
  uint64_t in_columns = 0;
  TimestampNs busy = 0;
  for (const TimelineColumn& column : slice.columns) {
    in_columns += column.count;
    busy += column.busy_ns;
  }
  uint64_t wide_in_range = 0;
  TimestampNs column_ns = (to - from) / columns;
  for (const TimelineInterval& wide : slice.intervals) {
    EXPECT_GE(wide.duration_ns(), column_ns);
    EXPECT_GT(wide.end_ns, from);
    if (wide.start_ns >= from) ++wide_in_range;
  }
  uint64_t expected = 0;
  TimestampNs expected_busy = 0;
  for (const auto& e : s.entries) {
    if (e.start_ns < from || e.start_ns >= to) continue;
    ++expected;
    expected_busy += e.end_ns - e.start_ns;
  }
  EXPECT_EQ(in_columns + wide_in_range, expected);
  TimestampNs wide_busy = 0;
  for (const TimelineInterval& wide : slice.intervals) {
    if (wide.start_ns >= from) wide_busy += wide.duration_ns();
  }
  EXPECT_EQ(busy + wide_busy, expected_busy);
  // Interval 99 ends after `from` only if it is long; the one at 100 starts 7 ns before it.
  EXPECT_TRUE(std::any_of(slice.intervals.begin(), slice.intervals.end(),
                          [&](const TimelineInterval& i) { return i.index == 100; }) ==
              (s.entries[100].end_ns - s.entries[100].start_ns >= column_ns));
}

TEST(TimelineLane, FewIntervalsComeBackOneByOne) {
  Synthetic s = MakeSynthetic(1000, 5);
  TimelineLane lane;
  lane.Build(s.entries, s.traits);
  TimestampNs from = s.entries[10].start_ns + 1;  // inside interval 10 when it is not empty
  TimestampNs to = s.entries[20].start_ns;
  LaneSlice slice = lane.Query(from, to, 1000, s.traits);
  EXPECT_FALSE(slice.aggregated);
  std::vector<uint32_t> indexes;
  for (const TimelineInterval& i : slice.intervals) indexes.push_back(i.index);
  std::vector<uint32_t> expected;
  if (s.entries[10].end_ns > from) expected.push_back(10);
  for (uint32_t i = 11; i < 20; ++i) expected.push_back(i);
  EXPECT_EQ(indexes, expected);
}

TEST(TimelineLane, FilteredQueryCountsOnlyAllowedItems) {
  Synthetic s = MakeSynthetic(20000, 6);
  TimelineLane lane;
  lane.Build(s.entries, s.traits);
  std::vector<uint8_t> mask(7, 0);
  mask[3] = 1;
  TimestampNs from = s.entries[0].start_ns;
  TimestampNs to = s.entries[3000].start_ns;
  LaneSlice slice = lane.Query(from, to, 100, s.traits, &mask);
  ASSERT_TRUE(slice.aggregated);
  uint64_t counted = 0;
  for (const TimelineColumn& column : slice.columns) {
    counted += column.count;
    if (column.count > 0) {
      EXPECT_EQ(column.dominant_key, 30);
      EXPECT_EQ(column.marked, column.count);
    }
  }
  for (const TimelineInterval& wide : slice.intervals) {
    EXPECT_EQ(wide.item, 3u);
    if (wide.start_ns >= from) ++counted;
  }
  EXPECT_EQ(counted, 3000u / 7 + 1);  // items 3, 10, ..., 2998
}

// --- A real recording: the same equality, and the memory budget.

TEST(TimelineRealTrace, LanesEqualTrackerAndFitTheMemoryBudget) {
  TraceContext context;
  ContextTracker tracker;
  TimelineBuilder builder;
  Recorder recorder;
  tracker.AddListener(&builder);
  tracker.AddListener(&recorder);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&builder);
  ASSERT_TRUE(LoadTrace(testing::TestData("real/veth-threaded-napi.dat"), context, fanout).ok());
  Timeline timeline = builder.Finish();
  ExpectLanesEqualTracker(timeline, recorder);
  EXPECT_GT(timeline.lane(0, Lane::kNapiPoll).size(), 1000u);
  EXPECT_GT(timeline.lane(0, Lane::kSoftirqWait).size(), 1000u);
  // Both ring-buffer overflows came before the first event of their CPU (trace-cmd report
  // shows them first): CPU0's at the trace start, so there is nothing to shade; CPU1's leaves
  // it unknown from the trace start to its first event. Other gaps are lost sched_switches.
  ASSERT_EQ(context.missed.size(), 2u);
  std::vector<TimelineGap> overflows;
  for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
    for (const TimelineGap& gap : timeline.gaps(cpu)) {
      if (gap.lost_events != 0) overflows.push_back(gap);
    }
  }
  ASSERT_EQ(overflows.size(), 1u);
  EXPECT_EQ(overflows[0].start_ns, timeline.start_ns());
  EXPECT_EQ(overflows[0].end_ns, context.missed[1].ts_ns);
  EXPECT_EQ(overflows[0].lost_events, context.missed[1].count);
  EXPECT_EQ(timeline.gaps(1).front().end_ns, context.missed[1].ts_ns);
  double bytes_per_event = static_cast<double>(timeline.BytesUsed()) / timeline.events();
  EXPECT_LT(bytes_per_event, 16.0);
  RecordProperty("model_bytes_per_event", std::to_string(bytes_per_event));
}

}  // namespace
}  // namespace napiscope
