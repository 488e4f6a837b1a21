// The merge of decoded chunks: merging subsets of the CPUs first (as each decoding worker does)
// and their merged streams after gives the order of one merge over every CPU, also where a
// CPU's time goes backwards, with the missed-event marks and the totals of every chunk.
#include "load/chunk_merge.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace napiscope::internal {
namespace {

// Streams of prepared chunks.
class PreparedSource : public ChunkSource {
 public:
  explicit PreparedSource(std::vector<std::vector<DecodedChunk>> streams)
      : streams_(std::move(streams)), next_(streams_.size(), 0) {}
  int streams() const override { return static_cast<int>(streams_.size()); }
  const DecodedChunk* NextChunk(int stream) override {
    size_t& next = next_[stream];
    if (next == streams_[stream].size()) return nullptr;
    return &streams_[stream][next++];
  }

 private:
  std::vector<std::vector<DecodedChunk>> streams_;
  std::vector<size_t> next_;
};

struct Taken {
  TimestampNs ts_ns;
  uint16_t cpu;
  int32_t pid;                 // the event's number within its CPU
  TimestampNs last_before_ns;  // of a missed-events mark, else -2
};

// Every event of `merge` in order.
std::vector<Taken> Drain(ChunkMerge& merge) {
  std::vector<Taken> taken;
  while (merge.Next()) {
    const Event& event = merge.event();
    TimestampNs last_before = -2;
    if (event.kind == EventKind::kMissedEvents) {
      EXPECT_EQ(merge.missed_mark().cpu, event.cpu);
      EXPECT_EQ(merge.missed_mark().ts_ns, event.ts_ns);
      last_before = merge.missed_mark().last_before_ns;
    }
    taken.push_back({event.ts_ns, event.cpu, event.pid, last_before});
  }
  EXPECT_FALSE(merge.Next());
  return taken;
}

// One CPU's events, mostly rising with ties across CPUs, sometimes going back in time, some
// of them missed-events marks; cut into chunks of 0 to 7 events, each counting a record more
// than it holds and one backwards step.
std::vector<DecodedChunk> CpuChunks(uint16_t cpu, std::mt19937& random) {
  std::vector<DecodedChunk> chunks;
  TimestampNs ts = 0;
  int32_t number = 0;
  for (int c = 0; c < 12; ++c) {
    DecodedChunk& chunk = chunks.emplace_back();
    chunk.records = 1;
    chunk.backwards = 1;
    int events = static_cast<int>(random() % 8);
    for (int i = 0; i < events; ++i) {
      ts += static_cast<TimestampNs>(random() % 4);
      if (random() % 10 == 0) ts -= 5;
      Event& event = chunk.events.emplace_back();
      event.ts_ns = ts;
      event.cpu = cpu;
      event.pid = number++;
      if (random() % 6 == 0) {
        event.kind = EventKind::kMissedEvents;
        chunk.missed.push_back({cpu, ts, ts - 100 - number, 3});
      }
      ++chunk.records;
    }
  }
  return chunks;
}

// `cpus` merged into one stream of chunks of `chunk_events` events, as a worker does.
std::vector<DecodedChunk> MergedStream(const std::vector<std::vector<DecodedChunk>>& all,
                                       const std::vector<int>& cpus, size_t chunk_events) {
  std::vector<std::vector<DecodedChunk>> subset;
  for (int cpu : cpus) subset.push_back(all[cpu]);
  PreparedSource source(subset);
  ChunkMerge merge(source, static_cast<int>(all.size()));
  std::vector<DecodedChunk> out;
  ReadTotals before;
  bool more = true;
  while (more) {
    DecodedChunk& chunk = out.emplace_back();
    while (chunk.events.size() < chunk_events && (more = merge.Next())) {
      chunk.events.push_back(merge.event());
      if (merge.event().kind == EventKind::kMissedEvents) {
        chunk.missed.push_back(merge.missed_mark());
      }
    }
    chunk.records = merge.totals().records - before.records;
    chunk.backwards = merge.totals().backwards - before.backwards;
    before = merge.totals();
  }
  return out;
}

TEST(ChunkMerge, MergedSubsetsGiveTheOrderOfOneMergeOverEveryCpu) {
  constexpr int kCpus = 7;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 random(seed);
    std::vector<std::vector<DecodedChunk>> cpus;
    int64_t records = 0;
    for (uint16_t cpu = 0; cpu < kCpus; ++cpu) {
      cpus.push_back(CpuChunks(cpu, random));
      for (const DecodedChunk& chunk : cpus.back()) records += chunk.records;
    }
    PreparedSource flat_source(cpus);
    ChunkMerge flat(flat_source, kCpus);
    std::vector<Taken> want = Drain(flat);
    ASSERT_GT(want.size(), 100u);
    EXPECT_EQ(flat.totals().records, records);
    EXPECT_EQ(flat.totals().backwards, kCpus * 12);
    // Each CPU's events come in their own order.
    std::vector<int32_t> next_of_cpu(kCpus, 0);
    for (const Taken& event : want) EXPECT_EQ(event.pid, next_of_cpu[event.cpu]++);

    for (const std::vector<std::vector<int>>& workers :
         {std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6}},
          std::vector<std::vector<int>>{{6, 0, 3}, {1, 5}, {2, 4}},
          std::vector<std::vector<int>>{{4}, {0, 1, 2, 3, 5, 6}}}) {
      for (size_t chunk_events : {1u, 5u, 64u}) {
        std::vector<std::vector<DecodedChunk>> streams;
        for (const std::vector<int>& owned : workers) {
          streams.push_back(MergedStream(cpus, owned, chunk_events));
        }
        PreparedSource two_level_source(streams);
        ChunkMerge two_level(two_level_source, kCpus);
        std::vector<Taken> got = Drain(two_level);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(got[i].cpu, want[i].cpu) << "event " << i;
          ASSERT_EQ(got[i].pid, want[i].pid) << "event " << i;
          ASSERT_EQ(got[i].ts_ns, want[i].ts_ns) << "event " << i;
          ASSERT_EQ(got[i].last_before_ns, want[i].last_before_ns) << "event " << i;
        }
        EXPECT_EQ(two_level.totals().records, records);
        EXPECT_EQ(two_level.totals().backwards, kCpus * 12);
      }
    }
  }
}

TEST(ChunkMerge, NoStreamsAndEmptyStreamsEndAtOnce) {
  PreparedSource none({});
  ChunkMerge merge_none(none, 1);
  EXPECT_FALSE(merge_none.Next());
  std::vector<DecodedChunk> empty(3);
  empty[1].records = 2;
  empty[1].impossible_time = 2;
  PreparedSource empties({empty, {}});
  ChunkMerge merge_empties(empties, 2);
  EXPECT_FALSE(merge_empties.Next());
  EXPECT_EQ(merge_empties.totals().records, 2);
  EXPECT_EQ(merge_empties.totals().impossible_time, 2);
}

}  // namespace
}  // namespace napiscope::internal
