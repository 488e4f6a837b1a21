// Neighbouring columns of an aggregated lane that look the same are one bar in the GUI and the
// HTML timeline: ForEachColumnRun joins them as the view rounds their heights.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "napiscope/timeline_lane.h"

namespace napiscope {
namespace {

TimelineColumn Column(uint32_t count, TimestampNs busy_ns, uint16_t key, uint32_t marked = 0,
                      TimestampNs longest_ns = 0) {
  TimelineColumn column;
  column.count = count;
  column.busy_ns = busy_ns;
  column.dominant_key = key;
  column.marked = marked;
  column.longest_ns = longest_ns != 0 ? longest_ns : busy_ns;
  return column;
}

std::vector<ColumnRun> RunsOf(const LaneSlice& slice, int levels) {
  std::vector<ColumnRun> runs;
  ForEachColumnRun(
      slice, 100.0, [&](double fraction) { return std::ceil(fraction * levels); },
      [&](const ColumnRun& run) { runs.push_back(run); });
  return runs;
}

TEST(ColumnRuns, AlikeNeighboursJoinAndAnEmptyColumnAKeyAMarkOrAHeightSplits) {
  LaneSlice slice;
  slice.aggregated = true;
  slice.columns = {
      Column(2, 40, 3, 0, 30),  // 0: run A begins (40 of 100 ns: height 1 of 2)
      Column(1, 50, 3),         // 1: same height, key and mark: joins A
      Column(0, 0, 0),          // 2: empty: ends A
      Column(1, 50, 3),         // 3: run B
      Column(1, 50, 4),         // 4: another key: run C
      Column(1, 50, 4, 1),      // 5: marked: run D
      Column(3, 90, 4, 1),      // 6: higher (2 of 2): run E
      Column(1, 250, 4, 1),     // 7: over a column's time counts as full: joins E
  };
  std::vector<ColumnRun> runs = RunsOf(slice, 2);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].width, 2u);
  EXPECT_EQ(runs[0].bar, 1.0);
  EXPECT_EQ(runs[0].count, 3);
  EXPECT_EQ(runs[0].busy_ns, 90);
  EXPECT_EQ(runs[0].longest_ns, 50);
  EXPECT_EQ(runs[1].first, 3u);
  EXPECT_EQ(runs[1].key, 3);
  EXPECT_EQ(runs[2].first, 4u);
  EXPECT_EQ(runs[2].key, 4);
  EXPECT_FALSE(runs[2].marked);
  EXPECT_EQ(runs[3].first, 5u);
  EXPECT_TRUE(runs[3].marked);
  EXPECT_EQ(runs[4].first, 6u);
  EXPECT_EQ(runs[4].width, 2u);
  EXPECT_EQ(runs[4].bar, 2.0);
  EXPECT_EQ(runs[4].count, 4);
  EXPECT_EQ(runs[4].busy_ns, 340);
}

TEST(ColumnRuns, TheViewsRoundingDecidesWhichHeightsAreEqual) {
  LaneSlice slice;
  slice.aggregated = true;
  slice.columns = {Column(1, 10, 1), Column(1, 30, 1)};
  EXPECT_EQ(RunsOf(slice, 1).size(), 1u);   // both round up to the one level
  EXPECT_EQ(RunsOf(slice, 10).size(), 2u);  // 1 and 3 of 10
  EXPECT_TRUE(RunsOf(LaneSlice{}, 4).empty());  // no columns: no runs
}

}  // namespace
}  // namespace napiscope
