#include "napiscope/timeline_lane_entries.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace napiscope {
namespace {

using Entry = TimelineLane::Entry;

constexpr size_t kChunk = TimelineLaneEntries::kChunkEntries;
constexpr TimestampNs kU32 = TimestampNs{UINT32_MAX};

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

TEST(TimelineLaneEntries, TakeGivesBackWhatWasAddedAcrossChunkBoundaries) {
  for (size_t count : {size_t{0}, size_t{1}, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 5}) {
    std::vector<Entry> added;
    for (size_t i = 0; i < count; ++i) {
      TimestampNs start = 1'000'000'000'000 + static_cast<TimestampNs>(i) * 977;
      added.push_back(
          {start, start + static_cast<TimestampNs>(i % 1500), static_cast<uint32_t>(i)});
    }
    TimelineLaneEntries entries;
    ExpectSame(AddAll(&entries, added), added);
    EXPECT_TRUE(entries.empty()) << count;
    EXPECT_EQ(entries.BytesUsed(), 0u) << count;
  }
}

TEST(TimelineLaneEntries, DurationsPastThirtyTwoBitsKeepTheirEnds) {
  // Around the escape value, 4.29 s and far beyond, negative and zero; some at chunk edges.
  std::vector<TimestampNs> lengths = {
      0, 1, kU32 - 1, kU32, kU32 + 1, 5'000'000'000, 86'400'000'000'000, -1, -kU32 - 7, INT32_MAX};
  std::vector<Entry> added;
  std::mt19937 random(11);
  for (size_t i = 0; i < 2 * kChunk + 3; ++i) {
    TimestampNs start = 5'000 + static_cast<TimestampNs>(i) * 10'000;
    bool edge = i % kChunk == 0 || i % kChunk == kChunk - 1;
    TimestampNs length = edge || random() % 17 == 0 ? lengths[random() % lengths.size()]
                                                    : static_cast<TimestampNs>(random() % 9000);
    added.push_back({start, start + length, static_cast<uint32_t>(random() % 50)});
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

TEST(TimelineLaneEntries, StartsFarFromTheChunksFirstStartKeepTheirValue) {
  // Intervals close in end order, so a chunk's starts go back as well as forward from its first.
  constexpr TimestampNs kI32Max = INT32_MAX;
  constexpr TimestampNs kI32Min = INT32_MIN;
  std::vector<TimestampNs> offsets = {0,
                                      1,
                                      -1,
                                      kI32Max,
                                      kI32Max + 1,
                                      kI32Min,
                                      kI32Min + 1,
                                      kI32Min - 1,
                                      -3'000'000'000,
                                      3'000'000'000,
                                      7'200'000'000'000};
  std::vector<Entry> added;
  std::mt19937 random(13);
  const TimestampNs base = 50'000'000'000;
  for (size_t i = 0; i < 3 * kChunk + 9; ++i) {
    TimestampNs start = base + static_cast<TimestampNs>(i) * 1000;
    if (i % kChunk != 0 && (i % kChunk == kChunk - 1 || random() % 13 == 0)) {
      // Far from the chunk's first start (added at i / kChunk * kChunk).
      start = base + static_cast<TimestampNs>(i / kChunk * kChunk) * 1000 +
              offsets[random() % offsets.size()];
    }
    TimestampNs length = random() % 29 == 0 ? 9'000'000'000 : static_cast<TimestampNs>(i % 700);
    added.push_back({start, start + length, static_cast<uint32_t>(i % 9)});
  }
  TimelineLaneEntries entries;
  ExpectSame(AddAll(&entries, added), added);
}

TEST(TimelineLaneEntries, HoldsAboutTwelveBytesAnInterval) {
  TimelineLaneEntries entries;
  const size_t count = 10 * kChunk;
  for (size_t i = 0; i < count; ++i) {
    entries.Add(static_cast<TimestampNs>(i) * 100, static_cast<TimestampNs>(i) * 100 + 50, 0);
  }
  EXPECT_LE(entries.BytesUsed(), count * 12 + 1024);
}

TEST(TimelineLaneEntries, ALaneBuiltFromThemEqualsOneBuiltFromTheVector) {
  std::vector<LaneItemTraits> traits = {{1, false}, {2, true}, {3, false}};
  std::vector<Entry> added;
  std::mt19937 random(5);
  for (size_t i = 0; i < 3 * kChunk + 17; ++i) {
    TimestampNs start = static_cast<TimestampNs>(random() % 50'000'000);
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
