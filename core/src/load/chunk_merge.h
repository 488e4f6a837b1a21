// The merge of streams of decoded chunks into one order by (timestamp, CPU), the same order
// at every level: over the CPUs a decoding worker owns, and over the workers' merged streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "load/chunk_decoder.h"
#include "load/event_ingest.h"

namespace napiscope::internal {

/// Hands out chunks of events in streams. Each stream delivers the events of its own CPUs
/// (no CPU is in two streams) in the order ChunkMerge would merge them: one CPU's records
/// as read, or several CPUs already merged.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  /// Number of streams.
  virtual int streams() const = 0;
  /// The next chunk of `stream` (valid until the next call for that stream), nullptr when the
  /// stream has no more. Releases the chunk returned before for that stream.
  virtual const DecodedChunk* NextChunk(int stream) = 0;
};

/// What the records read so far came to (summed over the chunks taken).
struct ReadTotals {
  int64_t records = 0;
  int64_t backwards = 0;        ///< records earlier than a previous one of their CPU
  int64_t impossible_time = 0;  ///< records dropped for a timestamp no clock reaches
};

/// Greedy merge of a ChunkSource's streams: the earliest head of all streams comes next, ties
/// to the lower CPU. Merging subsets of the CPUs first and their results after gives the same
/// order as merging every CPU at once, even where a CPU's time goes backwards: the events of a
/// subset come out of the whole merge in their subset's merged order.
class ChunkMerge {
 public:
  /// `cpus`: one more than the highest CPU number in the events.
  ChunkMerge(ChunkSource& source, int cpus);

  /// Moves to the next event; false when every stream is done (and on every call after).
  bool Next() {
    // The last stream left walks its chunk without the tournament (the merging thread's case when
    // one worker merges every CPU).
    if (current_ >= 0 && heads_.size() == 1) {
      Cursor& cursor = cursors_[current_];
      if (cursor.index + 1 < cursor.chunk->events.size()) {
        if (cursor.chunk->events[cursor.index].kind == EventKind::kMissedEvents) ++cursor.missed;
        ++cursor.index;
        return true;
      }
    }
    return NextFromTournament();
  }
  /// The event Next moved to (string ids local to strings()).
  const Event& event() const { return Current().chunk->events[Current().index]; }
  /// For a kMissedEvents event: its mark (the CPU's last time before the gap, the count).
  const MissedEventsMark& missed_mark() const { return Current().chunk->missed[Current().missed]; }
  /// The strings the event's ids refer to.
  DecoderStrings& strings() const { return *Current().chunk->strings; }
  /// Sums over every chunk taken so far.
  const ReadTotals& totals() const { return totals_; }

 private:
  // Where the merge stands in one stream's chunks.
  struct Cursor {
    const DecodedChunk* chunk = nullptr;
    size_t index = 0;   // the stream's head: next event of the chunk
    size_t missed = 0;  // next missed-events mark of the chunk
  };

  const Cursor& Current() const { return cursors_[current_]; }
  // Next() when the event comes from the tournament.
  bool NextFromTournament();
  // Moves the cursor of `stream` to an event; false when the stream has no more.
  bool Advance(int stream);
  // Puts the head of `stream` (Advance returned true) in the tournament, or in place of its top.
  void PushHead(int stream);
  void ReplaceTopWithHead(int stream);

  static constexpr int kPrefetchEvents = 4;

  ChunkSource& source_;
  std::vector<Cursor> cursors_;
  std::vector<int> stream_of_cpu_;  // by the CPU of each stream's head
  StreamTournament heads_;          // (head time, head CPU)
  int current_ = -1;                // stream of the event handed out; -1 before the first
  bool done_ = false;
  ReadTotals totals_;
};

}  // namespace napiscope::internal
