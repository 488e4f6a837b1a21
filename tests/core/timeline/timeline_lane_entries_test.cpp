#include "napiscope/timeline_lane_entries.h"

#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace napiscope {
namespace {

using Entry = TimelineLane::Entry;

constexpr TimestampNs kMin = std::numeric_limits<TimestampNs>::min();
constexpr TimestampNs kMax = std::numeric_limits<TimestampNs>::max();

void ExpectSame(const std::vector<Entry>& got, const std::vector<Entry>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].start_ns, expected[i].start_ns) << i;
    ASSERT_EQ(got[i].end_ns, expected[i].end_ns) << i;
    ASSERT_EQ(got[i].item, expected[i].item) << i;
  }
}

std::vector<Entry> AddAll(TimelineLaneEntries* entries, const std::vector<Entry>& added) {
  for (const Entry& e : added) entries->Add(e.start_ns, e.end_ns, e.item);
  EXPECT_EQ(entries->size(), added.size());
  return entries->Take();
}

TEST(TimelineLaneEntries, TakeGivesBackWhatWasAddedOverManyChunks) {
  // Up to 20000 entries of 3 to 9 bytes: thousands of chunk boundaries, each at a different
  // place in an entry sequence.
  for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{20000}}) {
    std::vector<Entry> added;
    std::mt19937 random(static_cast<uint32_t>(count));
    TimestampNs ts = 1'000'000'000'000;
    for (size_t i = 0; i < count; ++i) {
      ts += random() % (i % 3 == 0 ? 100 : 5'000'000);
      TimestampNs length = random() % (i % 5 == 0 ? 10 : 2'000'000);
      added.push_back(
          {ts, ts + length, static_cast<uint32_t>(random() % (i % 7 == 0 ? 5 : 70000))});
      ts += length;
    }
    TimelineLaneEntries entries;
    ExpectSame(AddAll(&entries, added), added);
    EXPECT_TRUE(entries.empty()) << count;
    EXPECT_EQ(entries.BytesUsed(), 0u) << count;
  }
}

TEST(TimelineLaneEntries, KeepsLongDurationsNegativeOnesAndStartsBeforeThePreviousEnd) {
  // Durations of 4.29 s and beyond (past 32 bits), negative ones, starts far before and after
  // the previous end (intervals close in end order, so a start may precede the last end), and
  // the extremes of int64; enough of them to cross chunk boundaries with the longest entries.
  const std::vector<TimestampNs> lengths = {0,
                                            1,
                                            -1,
                                            TimestampNs{UINT32_MAX} - 1,
                                            TimestampNs{UINT32_MAX},
                                            TimestampNs{UINT32_MAX} + 1,
                                            5'000'000'000,
                                            86'400'000'000'000,
                                            -6'000'000'000};
  const std::vector<TimestampNs> gaps = {0,   1,   -1, 3'000'000'000, -3'000'000'000, 127,
                                         128, -64, -65};
  std::vector<Entry> added;
  std::mt19937 random(11);
  TimestampNs ts = 50'000'000'000;
  for (size_t i = 0; i < 3000; ++i) {
    ts += gaps[random() % gaps.size()];
    TimestampNs length = lengths[random() % lengths.size()];
    added.push_back({ts, ts + length, static_cast<uint32_t>(random())});
    ts += length;
  }
  for (int i = 0; i < 400; ++i) {  // the longest encodings, back to back
    added.push_back({kMin, kMax, UINT32_MAX});
    added.push_back({kMax, kMin, 0});
    added.push_back({0, kMin, UINT32_MAX});
  }
  TimelineLaneEntries entries;
  ExpectSame(AddAll(&entries, added), added);
}

TEST(TimelineLaneEntries, CanBeFilledAgainAfterTake) {
  TimelineLaneEntries entries;
  entries.Add(10, 10 + 6'000'000'000, 1);
  entries.Add(20, 25, 2);
  ASSERT_EQ(entries.Take().size(), 2u);
  std::vector<Entry> again = {{30, 30 + 7'000'000'000, 3}, {40, 41, 4}};
  ExpectSame(AddAll(&entries, again), again);
}

TEST(TimelineLaneEntries, HoldsFewBytesAnInterval) {
  // Intervals 20 us long, 30 us apart, of a few dozen items: 3 bytes apart, 3 for the
  // duration, 1 for the item.
  TimelineLaneEntries entries;
  const size_t count = 100'000;
  for (size_t i = 0; i < count; ++i) {
    auto start = static_cast<TimestampNs>(i) * 50'000;
    entries.Add(start, start + 20'000, static_cast<uint32_t>(i % 30));
  }
  EXPECT_LE(entries.BytesUsed(), count * 8);
}

TEST(TimelineLaneEntries, ALaneBuiltFromThemEqualsOneBuiltFromTheVector) {
  std::vector<LaneItemTraits> traits = {{1, false}, {2, true}, {3, false}};
  std::vector<Entry> added;
  std::mt19937 random(5);
  for (size_t i = 0; i < 5000; ++i) {
    auto start = static_cast<TimestampNs>(random() % 50'000'000);
    TimestampNs length = i % 401 == 0 ? 4'500'000'000 : static_cast<TimestampNs>(random() % 5000);
    added.push_back({start, start + length, static_cast<uint32_t>(random() % 3)});
  }
  TimelineLaneEntries entries;
  for (const Entry& e : added) entries.Add(e.start_ns, e.end_ns, e.item);
  TimelineLane from_entries;
  from_entries.Build(entries.Take(), traits);
  TimelineLane from_vector;
  from_vector.Build(added, traits);
  ASSERT_EQ(from_entries.size(), from_vector.size());
  for (size_t i = 0; i < from_vector.size(); ++i) {
    ASSERT_EQ(from_entries.At(i), from_vector.At(i)) << i;
  }
}

}  // namespace
}  // namespace napiscope
