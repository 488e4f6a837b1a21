// The timeline's lane query as the GUI draws it: the slice TimelineLane::Query returns (block
// summaries, a forward search for each column's end) is the one the per-column query gives
// (LowerBound and Summarize for every column), column for column, at every zoom, on a generated
// trace of regular lanes and on recorded traces of mixed ones. Equal slices draw equal pixels.
#include <QTemporaryDir>
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loaded_trace.h"
#include "napiscope/timeline.h"
#include "support/test_support.h"
#include "tracegen/synthetic.h"

namespace napiscope::gui {
namespace {

// The lanes' aggregation traits as the timeline builder makes them from its items.
std::vector<LaneItemTraits> TraitsOf(const Timeline& timeline) {
  std::vector<LaneItemTraits> traits;
  for (const TimelineItem& item : timeline.items()) {
    traits.push_back({item.key, (item.flags & kItemExhausted) != 0});
  }
  return traits;
}

// The per-column query: column c covers [from + span * c / columns, from + span * (c + 1) /
// columns); each column's intervals found with LowerBound and summed with Summarize; a column
// with a block of intervals or more before the block of its last interval ends where that
// block begins; intervals at least a column wide are drawn on their own.
LaneSlice PerColumnQuery(const TimelineLane& lane, TimestampNs from_ns, TimestampNs to_ns,
                         int columns, std::span<const LaneItemTraits> traits) {
  LaneSlice slice;
  if (lane.empty() || to_ns <= from_ns || columns <= 0) return slice;
  size_t first = lane.LowerBound(from_ns);
  size_t last = lane.LowerBound(to_ns);
  if (last - first <= static_cast<size_t>(columns)) {
    lane.FindOverlapping(first, from_ns, 0, &slice.intervals);
    for (size_t i = first; i < last; ++i) slice.intervals.push_back(lane.At(i));
    return slice;
  }
  slice.aggregated = true;
  // from + floor(span * c / columns), as span / columns whole and the rest.
  TimestampNs whole = (to_ns - from_ns) / columns;
  TimestampNs rest = (to_ns - from_ns) % columns;
  std::vector<TimestampNs> boundaries;
  for (int c = 0; c <= columns; ++c) boundaries.push_back(from_ns + whole * c + rest * c / columns);
  TimestampNs widest = 0;
  for (int c = 0; c < columns; ++c) widest = std::max(widest, boundaries[c + 1] - boundaries[c]);
  lane.FindOverlapping(last, from_ns, std::max<TimestampNs>(widest, 1), &slice.intervals);
  slice.columns.resize(columns);
  std::vector<size_t> column_first(columns);
  size_t begin = first;
  for (int c = 0; c < columns; ++c) {
    column_first[c] = begin;
    size_t end = c + 1 == columns ? last : lane.LowerBound(boundaries[c + 1], begin);
    // The first interval of the block that holds the column's last one.
    size_t last_block_first =
        end > 0 ? (end - 1) / TimelineLane::kBlockSize * TimelineLane::kBlockSize : 0;
    if (end > begin && last_block_first >= begin + TimelineLane::kBlockSize && c + 1 < columns) {
      end = last_block_first;
    }
    if (end > begin) slice.columns[c] = lane.Summarize(begin, end, traits);
    begin = end;
  }
  for (const TimelineInterval& wide : slice.intervals) {
    if (wide.index < first) continue;
    auto after = std::upper_bound(column_first.begin(), column_first.end(), wide.index);
    TimelineColumn& column = slice.columns[after - column_first.begin() - 1];
    column.count -= 1;
    column.busy_ns -= wide.duration_ns();
    column.marked -= traits[wide.item].marked ? 1 : 0;
    if (column.count == 0) column = TimelineColumn{};
  }
  return slice;
}

// Compares every lane of every CPU at several zooms and widths; counts the non-empty columns
// compared in `compared`.
void ExpectQueriesMatch(const Timeline& timeline, const std::string& name, size_t* compared) {
  std::vector<LaneItemTraits> traits = TraitsOf(timeline);
  TimestampNs start = timeline.start_ns();
  TimestampNs span = timeline.end_ns() - start;
  for (TimestampNs zoom : {span, span / 3, span / 10, span / 100, span / 1000}) {
    if (zoom <= 0) continue;
    for (int columns : {37, 211, 1800, 1917}) {
      for (int position = 0; position < 3; ++position) {
        TimestampNs from = start + (span - zoom) * position / 2;
        for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
          for (Lane lane_id : {Lane::kTask, Lane::kHardirq, Lane::kSoftirq, Lane::kSoftirqWait,
                               Lane::kNapiPoll}) {
            const TimelineLane& lane = timeline.lane(cpu, lane_id);
            LaneSlice want = PerColumnQuery(lane, from, from + zoom, columns, traits);
            LaneSlice got = lane.Query(from, from + zoom, columns, traits);
            std::string where = name + " cpu " + std::to_string(cpu) + " lane " +
                                std::string(LaneName(lane_id)) + " span " +
                                std::to_string(zoom) + " at " + std::to_string(from) + ", " +
                                std::to_string(columns) + " columns";
            ASSERT_EQ(got.aggregated, want.aggregated) << where;
            ASSERT_EQ(got.intervals, want.intervals) << where;
            ASSERT_EQ(got.columns.size(), want.columns.size()) << where;
            for (size_t c = 0; c < want.columns.size(); ++c) {
              const TimelineColumn& g = got.columns[c];
              const TimelineColumn& w = want.columns[c];
              ASSERT_EQ(g.count, w.count) << where << " column " << c;
              ASSERT_EQ(g.marked, w.marked) << where << " column " << c;
              ASSERT_EQ(g.busy_ns, w.busy_ns) << where << " column " << c;
              ASSERT_EQ(g.longest_ns, w.longest_ns) << where << " column " << c;
              if (w.count > 0) {
                ASSERT_EQ(g.dominant_key, w.dominant_key) << where << " column " << c;
              }
              *compared += w.count > 0 ? 1 : 0;
            }
          }
        }
      }
    }
  }
}

TEST(TimelineQuery, EqualsThePerColumnQueryOnAGeneratedTrace) {
  QTemporaryDir dir;
  std::string path = dir.filePath("synthetic.dat").toStdString();
  tracegen::SyntheticOptions options;
  options.cpus = 4;
  options.events = 600'000;
  ASSERT_TRUE(tracegen::WriteSyntheticTrace(path, options).ok());
  LoadedTrace trace;
  ASSERT_TRUE(LoadTraceForView(path, {}, &trace).ok());
  // Lanes dense enough that a column of the widest zoom holds tens of intervals.
  ASSERT_GT(trace.timeline.lane(0, Lane::kSoftirq).size(), 10'000u);
  size_t compared = 0;
  ExpectQueriesMatch(trace.timeline, "synthetic", &compared);
  EXPECT_GT(compared, 100'000u);
}

TEST(TimelineQuery, EqualsThePerColumnQueryOnRecordedTraces) {
  for (const char* file : {"real/server16-softirq-napi.dat", "real/veth-threaded-napi.dat",
                           "real/napi-chrt.dat", "real/short-v6.dat"}) {
    LoadedTrace trace;
    ASSERT_TRUE(LoadTraceForView(napiscope::testing::TestData(file), {}, &trace).ok()) << file;
    size_t compared = 0;
    ExpectQueriesMatch(trace.timeline, file, &compared);
    EXPECT_GT(compared, 0u) << file;
  }
}

}  // namespace
}  // namespace napiscope::gui
