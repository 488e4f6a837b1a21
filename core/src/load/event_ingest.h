// The one ingestion path after decoding, shared by trace.dat, text and live capture: streams
// merged by time, then the bookkeeping every event gets once (monotonic time, missed-event
// gaps, task names, stack records kept out of the stream) before the sink sees it.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "napiscope/event_sink.h"

struct tep_handle;

namespace napiscope::internal {

/// The stream heads of a merge, ordered by (time, stream id): the merge of every loader. A
/// tournament (loser) tree over the streams, padded to a power of two, whose comparisons take no
/// branches: every change of the top costs log2(streams) comparisons, none of them mispredicted
/// however the streams interleave. Ids must be unique among the streams.
class StreamTournament {
 public:
  /// Adds stream `stream` whose head is at `ts_ns`; call Build after the last Push.
  void Push(TimestampNs ts_ns, int stream) { leaves_.push_back({ts_ns, stream}); }
  /// Orders the pushed heads.
  void Build();
  /// True when no stream is left.
  bool empty() const { return live_ == 0; }
  /// Streams left.
  size_t size() const { return live_; }
  /// The stream whose head comes first.
  int top_stream() const { return leaves_[winner_].stream; }
  /// The time of the first head.
  TimestampNs top_ts() const { return leaves_[winner_].ts_ns; }
  /// The top stream moved on to a head at `ts_ns`.
  void ReplaceTop(TimestampNs ts_ns) {
    leaves_[winner_].ts_ns = ts_ns;
    Replay();
  }
  /// The top entry is replaced by stream `stream` at `ts_ns` (a merged stream whose head's
  /// CPU, the tie-breaker, changed).
  void ReplaceTop(TimestampNs ts_ns, int stream) {
    leaves_[winner_] = {ts_ns, stream};
    Replay();
  }
  /// The top stream has nothing more.
  void PopTop();

 private:
  struct Head {
    TimestampNs ts_ns;
    int stream;
  };
  // (time, stream) order, computed without a branch.
  static bool Before(const Head& a, const Head& b) {
    return (a.ts_ns < b.ts_ns) | ((a.ts_ns == b.ts_ns) & (a.stream < b.stream));
  }
  // Plays the changed top leaf's matches up to the root.
  void Replay() {
    uint32_t winner = winner_;
    for (size_t node = (winner + losers_.size()) >> 1; node > 0; node >>= 1) {
      const uint32_t loser = losers_[node];
      const bool swap = Before(leaves_[loser], leaves_[winner]);
      losers_[node] = swap ? winner : loser;
      winner = swap ? loser : winner;
    }
    winner_ = winner;
  }

  std::vector<Head> leaves_;      // one per stream, then done leaves up to a power of two
  std::vector<uint32_t> losers_;  // [1, leaves): the loser of each inner node's match
  uint32_t winner_ = 0;           // the leaf that comes first
  size_t live_ = 0;
};

/// Applies the stream bookkeeping to events taken from a StreamTournament merge, in that order, and
/// hands them to the sink.
class EventIngest {
 public:
  /// `saved_comms` (may be null) names each pid on first sight from the file's saved
  /// cmdlines (trace.dat, live); text names tasks from its comm column instead.
  EventIngest(TraceContext& context, EventSink& sink, tep_handle* saved_comms);

  /// Calls the sink's OnBegin.
  void Begin() { sink_.OnBegin(context_); }
  /// Calls the sink's OnEnd.
  void End() { sink_.OnEnd(); }

  /// Delivers one decoded event. Time never goes backwards: an event earlier than the one
  /// before gets that one's time (counted in clamped()). `line_comm` (0: none) is the name the
  /// source printed beside the event, kept as the pid's name from then on. Stack-trace
  /// records (ftrace kernel_stack / user_stack) are counted in meta and not delivered.
  void Deliver(Event& event, StringId line_comm = 0);

  /// Delivers a kMissedEvents event (ts, cpu and missed.count set) and records its gap;
  /// `last_before_ns` is the time of the CPU's last event before the gap (-1: none).
  void DeliverMissed(Event& event, TimestampNs last_before_ns);

  /// Events whose time was moved forward to keep the order.
  int64_t clamped() const { return clamped_; }
  /// Events delivered, gaps not counted.
  int64_t delivered() const { return delivered_; }

 private:
  TimestampNs Clamp(TimestampNs ts_ns) {
    if (ts_ns < delivered_ns_) {
      ++clamped_;
      return delivered_ns_;
    }
    delivered_ns_ = ts_ns;
    return ts_ns;
  }
  bool IsStackRecord(StringId name);
  // Names `event`'s pid from the saved cmdlines the first time it is seen (kept off Deliver's
  // path: called only when the CPU's pid changed).
  [[gnu::noinline]] void NameOnFirstSight(const Event& event);
  bool FirstSight(int32_t pid);

  TraceContext& context_;
  EventSink& sink_;
  tep_handle* saved_comms_;
  TimestampNs delivered_ns_ = 0;  // time of the last event delivered
  int64_t clamped_ = 0;
  int64_t delivered_ = 0;
  std::vector<int32_t> last_pid_;       // per CPU: the pid last checked by FirstSight
  std::vector<uint8_t> stack_name_;     // per name id: 0 not looked at, 1 stack, 2 other
  static constexpr int32_t kDensePids = 1 << 22;  // the kernel's largest pid_max
  std::vector<bool> dense_seen_;
  absl::flat_hash_set<int32_t> sparse_seen_;
};

}  // namespace napiscope::internal
