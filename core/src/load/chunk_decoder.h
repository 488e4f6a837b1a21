// Decoding the records of one CPU into fixed-size chunks of Events, on any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "load/cpu_record_reader.h"
#include "load/event_decoder.h"

namespace napiscope::internal {

/// A record the decoder could not decode (unknown event id): it keeps its place in the
/// merge, like in libtracecmd's order, but is counted instead of delivered.
constexpr EventKind kSkippedRecord = EventKind::kCount;

/// Strings one decoder interned, readable from the merging thread: the decoder interns into
/// `table` alone and publishes each new string under the mutex before handing out a chunk
/// that uses it.
struct DecoderStrings {
  StringTable table;  ///< decoder thread only
  std::mutex mutex;
  std::vector<std::string_view> published;  ///< by local id; views into `table`
  /// Merging thread only: global id + 1 of each local id, 0 when not yet interned.
  std::vector<StringId> global_plus_one;
  /// (local id, global id) of each string the merging thread interned, in order; under the
  /// mutex. The decoder takes them over to map the ids of the events it decodes after.
  std::vector<std::pair<StringId, StringId>> learned;
  /// Decoder thread only: global id + 1 of the local ids it has taken over from `learned`.
  std::vector<StringId> known_global_plus_one;
  size_t learned_taken = 0;  ///< decoder thread only: entries of `learned` taken over
};

/// Set in an event's `name` when its string ids are still local to the chunk's strings
/// (some string of it had no global id yet when it was decoded); clear when every string id of
/// the event is already the trace's. A decoder never holds 2^31 strings.
constexpr StringId kLocalStringIds = StringId{1} << 31;

/// Calls `visit(StringId&)` on each string id field of `event` besides its name.
template <typename Visit>
void ForEachPayloadString(Event& event, Visit&& visit) {
  switch (event.kind) {
    case EventKind::kSchedSwitch:
      visit(event.sched_switch.prev_comm);
      visit(event.sched_switch.next_comm);
      break;
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      visit(event.wake.comm);
      break;
    case EventKind::kSchedMigrateTask:
      visit(event.migrate.comm);
      break;
    case EventKind::kSchedPiSetprio:
      visit(event.pi.comm);
      break;
    case EventKind::kSchedProcessFork:
      visit(event.fork.child_comm);
      break;
    case EventKind::kSchedProcessExit:
      visit(event.exit.comm);
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      visit(event.irq.handler);
      break;
    case EventKind::kNapiPoll:
      visit(event.napi.dev);
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      visit(event.net.dev);
      break;
    default:
      break;
  }
}

/// Up to a fixed number of consecutive records of one CPU, decoded.
struct DecodedChunk {
  std::vector<Event> events;                ///< string ids local to `strings`
  std::vector<MissedEventsMark> missed;     ///< one per kMissedEvents event, in order
  DecoderStrings* strings = nullptr;
  int64_t records = 0;
  int64_t backwards = 0;                    ///< records earlier than a previous one of the CPU
  int64_t impossible_time = 0;              ///< records dropped: timestamp past 2^62 ns (corrupt)
  uint64_t last_offset = 0;                 ///< file offset of the last record
};

/// Reading state of one CPU.
struct CpuStream {
  std::unique_ptr<CpuRecordReader> reader;
  TimestampNs last_ts_ns = -1;
  bool finished = false;
};

/// Decodes chunks of any number of CPUs with one EventDecoder; one instance per thread.
class ChunkDecoder {
 public:
  /// Events per chunk: small, so that a chunk is still in cache when the merge reads it
  /// (16 CPUs x 4 slots x 512 x 48 bytes = 1.5 MB in flight).
  static constexpr size_t kChunkEvents = 512;

  /// `formats` are only read here, never by Decode.
  explicit ChunkDecoder(const TraceFormats& formats);

  /// Fills `chunk` with the next records of `stream` (clearing it first); marks the stream
  /// finished when its reader has no more records.
  void DecodeChunk(CpuStream& stream, uint16_t cpu, DecodedChunk* chunk);

  /// The strings this decoder interned.
  DecoderStrings& strings() { return *strings_; }

  /// Gives the events of `chunk` whose strings all have a global id (learned from the merging
  /// thread) those ids, and marks the others kLocalStringIds for the merging thread to map;
  /// done on the decoding thread, so the merging thread maps only strings' first uses.
  void MapKnownStrings(DecodedChunk* chunk);

 private:
  void Publish();

  std::unique_ptr<DecoderStrings> strings_;
  EventDecoder decoder_;
};

}  // namespace napiscope::internal
