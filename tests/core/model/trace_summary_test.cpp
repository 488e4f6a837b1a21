// The trace summary `napiscope info` prints: counts of each event name on the CPUs it occurs
// on, each CPU's gaps, and memory that follows the events, not names x CPU numbers.
#include <malloc.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/trace_summary.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;
using ::testing::ElementsAre;
using ::testing::FieldsAre;

TraceSummary Summarize(EventBuilder& b) {
  TraceSummaryBuilder builder;
  b.Play(builder);
  return builder.Finish(b.context());
}

TEST(TraceSummary, CountsEachNameOnlyOnTheCpusItOccursOn) {
  EventBuilder b(4);
  b.Other(0, 100, 1, "alpha").Other(2, 200, 1, "alpha").Other(2, 300, 1, "alpha");
  b.Other(3, 400, 1, "beta");
  TraceSummary s = Summarize(b);
  EXPECT_EQ(s.events, 4);
  EXPECT_THAT(s.events_per_cpu, ElementsAre(1, 0, 2, 1));
  ASSERT_EQ(s.counts.size(), 2u);
  EXPECT_EQ(s.counts[0].name, "alpha");
  EXPECT_EQ(s.counts[0].total, 3);
  EXPECT_THAT(s.counts[0].per_cpu, ElementsAre(FieldsAre(0, 1), FieldsAre(2, 2)));
  EXPECT_EQ(s.counts[1].name, "beta");
  EXPECT_THAT(s.counts[1].per_cpu, ElementsAre(FieldsAre(3, 1)));
}

// Each of 300 names on CPU 0 and on CPU 65535 (a text line can say so): far more counters than
// the dense budget holds, so most names are counted sparsely, and all exactly.
TEST(TraceSummary, ManyNamesOnAHighCpuAreCountedExactly) {
  EventBuilder b(65536);
  TimestampNs ts = 0;
  for (int name = 0; name < 300; ++name) {
    std::string text = "event_" + std::to_string(1000 + name);
    b.Other(0, ++ts, 1, text);
    for (int i = 0; i <= name % 3; ++i) b.Other(65535, ++ts, 1, text);
  }
  TraceSummary s = Summarize(b);
  ASSERT_EQ(s.counts.size(), 300u);
  for (int name = 0; name < 300; ++name) {
    const EventNameCount& count = s.counts[static_cast<size_t>(name)];
    EXPECT_EQ(count.name, "event_" + std::to_string(1000 + name));
    EXPECT_EQ(count.total, 2 + name % 3) << count.name;
    EXPECT_THAT(count.per_cpu, ElementsAre(FieldsAre(0, 1), FieldsAre(65535, 1 + name % 3)))
        << count.name;
  }
  EXPECT_EQ(s.events_per_cpu[65535], 300 + 100 * (0 + 1 + 2));
}

// 2000 names each seen once on CPU 65535 held a counter for every CPU below it too: 1 GiB.
TEST(TraceSummary, MemoryFollowsTheEventsNotNamesTimesCpuNumbers) {
  EventBuilder b(65536);
  for (int name = 0; name < 2000; ++name) {
    b.Other(65535, name + 1, 1, "event_" + std::to_string(name));
  }
  size_t before = mallinfo2().uordblks;
  TraceSummaryBuilder builder;
  b.Play(builder);
  TraceSummary s = builder.Finish(b.context());
  size_t grown = mallinfo2().uordblks - before;
  ASSERT_EQ(s.counts.size(), 2000u);
  EXPECT_THAT(s.counts[0].per_cpu, ElementsAre(FieldsAre(65535, 1)));
  EXPECT_LT(grown, size_t{64} << 20);
}

TEST(TraceSummary, ACpuWhoseGapsAllCameBeforeItsFirstEventIsOnlyLeading) {
  EventBuilder b(3);
  b.Missed(1, 100, 5).Other(1, 200, 1, "alpha");
  b.Missed(2, 100, 7).Other(2, 200, 1, "alpha").Missed(2, 300, -1).Other(2, 400, 1, "alpha");
  b.Other(0, 500, 1, "alpha");
  TraceSummary s = Summarize(b);
  ASSERT_EQ(s.missed_per_cpu.size(), 3u);
  EXPECT_EQ(s.missed_per_cpu[0].gaps, 0);
  EXPECT_FALSE(s.missed_per_cpu[0].only_leading);
  EXPECT_EQ(s.missed_per_cpu[1].gaps, 1);
  EXPECT_EQ(s.missed_per_cpu[1].events, 5);
  EXPECT_TRUE(s.missed_per_cpu[1].only_leading);
  EXPECT_EQ(s.missed_per_cpu[2].gaps, 2);
  EXPECT_EQ(s.missed_per_cpu[2].events, 7);
  EXPECT_TRUE(s.missed_per_cpu[2].some_unknown);
  EXPECT_FALSE(s.missed_per_cpu[2].only_leading);
  // The leading gap lost no traced time; the other one the time since the event before it.
  EXPECT_EQ(s.missed_per_cpu[2].lost_ns, 300 - 200);
}

// A trace recorded on some CPUs of a larger machine: the CPUs with events, and a CPU whose
// every event was lost (its gap is all it shows), are the ones with something to show.
TEST(TraceSummary, CpusWithEventsAreThoseWithEventsOrGaps) {
  EventBuilder b(6);
  b.Other(1, 100, 1, "alpha").Other(4, 200, 1, "alpha").Missed(3, 300, 12);
  TraceSummary s = Summarize(b);
  EXPECT_THAT(s.events_per_cpu, ElementsAre(0, 1, 0, 0, 1, 0));
  EXPECT_THAT(s.CpusWithEvents(), ElementsAre(1, 3, 4));
  EXPECT_TRUE(TraceSummary{}.CpusWithEvents().empty());
}

}  // namespace
}  // namespace napiscope
