// napiscope's tracks written on a thread of their own. The analysing thread only copies each
// interval and fact the tracks use into a batch of records (and, the first time a trace string
// or a task's comm is needed, a copy of it); the track thread hands the records, in the order
// they came, to the same ContextTracks and FactTracks the one-thread export calls directly, so
// the packets are the same, and the analysing thread (the export's critical path) no longer
// looks up tracks, builds args or encodes TrackEvents. Records the tracks would write nothing for
// stay on the analysing thread (task intervals, unpaired waits, waits of unwatched tasks). Batches
// are bounded in number: memory does not grow with the trace. Each record carries the trace time
// of the event it was made at, so the blocks of tracks are stamped as the one-thread export
// stamps them; each batch says how far the analysis had come, and once it is written the queue
// may write the blocks made before that (BlockQueue::Progress).
#pragma once

#include <condition_variable>
#include <deque>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "block_queue.h"
#include "context_tracks.h"
#include "fact_tracks.h"
#include "napiscope/facts.h"

namespace napiscope::perfetto_export {

/// Listens on the analysing thread; the track thread calls `context_tracks` and `fact_tracks`.
class TrackThread final : public ContextListener, public FactListener {
 public:
  /// `layout` reads names from the copies this class fills (until Finish); `context` is the
  /// trace context the analysing thread's strings and tasks come from; the tracks write into
  /// `packets`, whose blocks go to `blocks`.
  TrackThread(ContextListener* context_tracks, FactListener* fact_tracks, TrackLayout* layout,
              const TraceContext** context, BlockWriter* packets, BlockQueue* blocks);
  ~TrackThread() override;
  TrackThread(const TrackThread&) = delete;
  TrackThread& operator=(const TrackThread&) = delete;

  /// What the context tracks read: the tracker calls the thread for nothing else.
  ContextReads Reads() const override { return context_tracks_->Reads(); }
  void OnInterval(const ContextInterval& interval) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;
  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override;
  void OnSoftirqWait(const SoftirqWaitFact& wait) override;
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) override;
  void OnThreadActivation(const ThreadActivationFact& activation) override;
  void OnWakeQueued(const WakeWaitFact& wait) override;
  void OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                   TimestampNs ts_ns) override;
  void OnWakeRan(const WakeRunFact& run) override;
  void OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) override;

  /// The analysis is at the event of `ts_ns`: the records it makes now are stamped with it, and
  /// every few thousand events the batch goes over even when not full, so that the file's
  /// blocks keep flowing on traces with few records.
  void Tick(TimestampNs ts_ns) {
    now_ns_ = ts_ns;
    if (++events_since_hand_over_ >= kHandOverEvents) HandOver();
  }

  /// Starts the track thread (once). Call before the analysis sends the first record, after
  /// the loader read the trace's header (see ExportPerfettoTrace).
  void Start();

  /// Hands over the last records, waits until the track thread wrote them all and ends it; the
  /// layout reads names from the trace context again. Call once the analysis sends no more.
  void Finish();

 private:
  struct UnknownTime {
    uint16_t cpu;
    TimestampNs start_ns, end_ns;
  };
  struct WaitDropped {
    SoftirqRaiseFact raise;
    TimestampNs gap_ns;
  };
  struct WakeMoved {
    uint64_t wait_id;
    uint16_t from_cpu, to_cpu;
    TimestampNs ts_ns;
  };
  struct WakeDropped {
    uint64_t wait_id;
    WakeDropReason reason;
    TimestampNs ts_ns;
  };
  struct StringCopy {  // the text of trace string `id` is the batch's strings[index]
    StringId id;
    uint32_t index;
  };
  struct CommChange {  // task `pid` is named `comm` from here on
    int32_t pid;
    StringId comm;
  };
  using Record =
      std::variant<ContextInterval, UnknownTime, SoftirqRaiseFact, SoftirqWaitFact, WaitDropped,
                   ThreadActivationFact, WakeWaitFact, WakeMoved, WakeRunFact, WakeDropped,
                   StringCopy, CommChange>;
  struct Batch {
    std::vector<Record> records;
    std::vector<TimestampNs> made_ns;  // by record: the time of the event that made it
    std::vector<std::string> strings;
    TimestampNs progress_ns = kBeforeTrace;  // the analysis' time when it went over
  };
  static constexpr size_t kBatchRecords = 4096;
  static constexpr int kHandOverEvents = 16384;
  static constexpr size_t kMaxQueued = 16;  // batches handed over and not yet written

  template <typename T>
  void Push(const T& record) {
    batch_.records.emplace_back(record);
    batch_.made_ns.push_back(now_ns_);
    if (batch_.records.size() >= kBatchRecords) HandOver();
  }
  void NeedString(StringId id);  // copies the string the first time
  void NeedComm(int32_t pid);    // sends the task's comm when it changed
  void HandOver();               // the batch to the track thread
  void Run();                    // the track thread
  void Write(const Batch& batch);

  ContextListener* context_tracks_;
  FactListener* fact_tracks_;
  TrackLayout* layout_;
  const TraceContext** context_;
  BlockWriter* packets_;
  BlockQueue* blocks_;
  // Analysing thread's side.
  Batch batch_;
  TimestampNs now_ns_ = kBeforeTrace;
  int events_since_hand_over_ = 0;
  std::vector<bool> strings_sent_;                   // by StringId
  absl::flat_hash_map<int32_t, StringId> comms_sent_;  // by pid
  // Only the waits of watched tasks are handed over (FactTracks writes nothing for the others,
  // and on most traces they are nearly every wait): the ids of those still open.
  WakeWatches watches_;
  absl::flat_hash_set<uint64_t> watched_waits_;
  // Track thread's side.
  NameCopies names_;
  // Between them.
  std::mutex mutex_;
  std::condition_variable work_;  // the track thread waits for a batch
  std::condition_variable room_;  // the analysing thread waits for room
  std::deque<Batch> queued_;      // oldest first
  std::vector<Batch> free_;
  bool finishing_ = false;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace napiscope::perfetto_export
