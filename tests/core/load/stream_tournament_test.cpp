// The merge's tournament hands out the heads of any number of streams in (time, stream) order,
// streams ending at any point and merged streams changing their id (the head's CPU).
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "load/event_ingest.h"

namespace napiscope::internal {
namespace {

using Head = std::pair<TimestampNs, int>;  // time, id

// Merges `streams` (each sorted by time; an entry's id may change within a stream, never
// shared by two streams) through the tournament, and checks at every step that its top is
// the earliest (time, id) of the streams' heads, found by a scan.
void ExpectMergedInOrder(const std::vector<std::vector<Head>>& streams) {
  StreamTournament heads;
  std::vector<size_t> next(streams.size(), 0);
  std::vector<int> stream_of_id(1024, -1);
  size_t total = 0;
  for (size_t i = 0; i < streams.size(); ++i) {
    total += streams[i].size();
    if (streams[i].empty()) continue;
    stream_of_id[static_cast<size_t>(streams[i][0].second)] = static_cast<int>(i);
    heads.Push(streams[i][0].first, streams[i][0].second);
  }
  heads.Build();
  size_t taken = 0;
  while (!heads.empty()) {
    std::optional<Head> earliest;
    size_t left = 0;
    for (size_t i = 0; i < streams.size(); ++i) {
      if (next[i] == streams[i].size()) continue;
      ++left;
      if (!earliest || streams[i][next[i]] < *earliest) earliest = streams[i][next[i]];
    }
    ASSERT_EQ(heads.size(), left);
    ASSERT_EQ(Head(heads.top_ts(), heads.top_stream()), *earliest) << "entry " << taken;
    const size_t stream =
        static_cast<size_t>(stream_of_id[static_cast<size_t>(heads.top_stream())]);
    const std::vector<Head>& events = streams[stream];
    ++taken;
    if (++next[stream] == events.size()) {
      heads.PopTop();
      continue;
    }
    const Head& head = events[next[stream]];
    stream_of_id[static_cast<size_t>(head.second)] = static_cast<int>(stream);
    if (head.second == events[next[stream] - 1].second) {
      heads.ReplaceTop(head.first);
    } else {
      heads.ReplaceTop(head.first, head.second);
    }
  }
  EXPECT_EQ(taken, total);
}

TEST(StreamTournament, HandsOutTheEarliestHeadEveryTime) {
  std::mt19937 random(7);
  for (int streams : {0, 1, 2, 3, 5, 16, 17, 64, 100}) {
    SCOPED_TRACE(::testing::Message() << streams << " streams");
    // Stream s owns the ids congruent to s modulo `streams`; it changes id now and then, like
    // a worker's merged stream whose head moves to another CPU.
    std::vector<std::vector<Head>> input(static_cast<size_t>(streams));
    for (int s = 0; s < streams; ++s) {
      const int events = static_cast<int>(random() % 200);
      TimestampNs ts = random() % 50;
      int id = s;
      for (int e = 0; e < events; ++e) {
        ts += random() % 4;  // equal times across streams are frequent
        if (random() % 8 == 0 && id + streams < 1024) id += streams;
        input[static_cast<size_t>(s)].emplace_back(ts, id);
      }
    }
    ExpectMergedInOrder(input);
  }
}

TEST(StreamTournament, TiesGoToTheLowerIdAndTheLastStreamEndsIt) {
  StreamTournament heads;
  heads.Push(10, 3);
  heads.Push(10, 1);
  heads.Push(5, 2);
  heads.Build();
  EXPECT_EQ(heads.size(), 3u);
  EXPECT_EQ(heads.top_stream(), 2);
  heads.ReplaceTop(10);
  EXPECT_EQ(heads.top_stream(), 1);
  heads.PopTop();
  EXPECT_EQ(heads.top_stream(), 2);
  heads.ReplaceTop(11, 0);
  EXPECT_EQ(heads.top_stream(), 3);
  EXPECT_EQ(heads.top_ts(), 10);
  heads.PopTop();
  EXPECT_EQ(heads.top_stream(), 0);
  EXPECT_EQ(heads.size(), 1u);
  heads.PopTop();
  EXPECT_TRUE(heads.empty());
}

}  // namespace
}  // namespace napiscope::internal
