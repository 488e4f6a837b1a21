// Blocks of whole encoded TracePackets on their way to the file. Any thread encodes packets
// into a block of its own (the track thread its TrackEvents, each decoding thread its CPUs'
// ftrace bundles, the analysing thread a text trace's bundles) and hands the block over; one
// thread writes the blocks (or the calling thread, when the export runs on one). Blocks are
// written in the order of their keys (the trace time their first packet was made at, then
// their source, then the source's count), each once no block with a lower key can still come:
// the file is the same bytes whichever threads made it and however they were scheduled.
// Memory does not grow with the trace: blocks wait only until the analysis has passed their
// time, and a bounded number of blocks waits for the disk.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "napiscope/event.h"
#include "packet_writer.h"
#include "proto_writer.h"

namespace napiscope::perfetto_export {

/// Who made a block: the second part of its key, so that blocks of one trace time are written
/// in a fixed order.
namespace block_source {
inline constexpr uint32_t kOpening = 0;    ///< the packet that opens the sequence
inline constexpr uint32_t kAnalysing = 1;  ///< the analysing thread's ftrace bundles (text)
inline constexpr uint32_t kTracks = 2;     ///< napiscope's tracks
inline constexpr uint32_t kFirstCpu = 3;   ///< + N: CPU N's decoded ftrace bundles
/// Sources that keep a block open across calls (BlockWriter), whose open block holds back
/// the blocks after it.
inline constexpr size_t kWriters = 3;
}  // namespace block_source

/// Where a block goes in the file: blocks are written in the order of their keys.
struct BlockKey {
  TimestampNs stamp = 0;  ///< the trace time its first packet was made at
  uint32_t source = 0;    ///< who made it (block_source)
  uint64_t seq = 0;       ///< how many blocks its source made before it

  /// Key order: stamp, then source, then seq.
  bool operator<(const BlockKey& other) const {
    if (stamp != other.stamp) return stamp < other.stamp;
    if (source != other.source) return source < other.source;
    return seq < other.seq;
  }
};

/// A trace time before every event: the opening packet's stamp.
inline constexpr TimestampNs kBeforeTrace = std::numeric_limits<TimestampNs>::min();
/// A trace time after every event: what is written after the analysis (findings).
inline constexpr TimestampNs kAfterTrace = std::numeric_limits<TimestampNs>::max();

/// Blocks from any thread to the file, written in the order of their keys.
///
/// The promise each source keeps: a decoding thread decodes a CPU's records before the
/// analysis can pass their time, so its later blocks have stamps at or after the analysis'
/// progress; a BlockWriter's later blocks have stamps at or after its open block's (Opened) or,
/// with none open, at or after the progress. Progress is the trace time of the last event the
/// analysis handled whose tracks are written. A block is written once its stamp is before both.
/// A trace whose CPU clock steps back (the merge then delivers a record later than its time)
/// can break the first promise, and a trace whose time runs far ahead of the analysis (a
/// crafted one: timestamps no clock reaches) would hold its blocks to the end: past 64 MiB
/// held, the lowest keys are written anyway. Such traces keep every block, some out of order.
class BlockQueue {
 public:
  /// With `threaded`, a thread writes the blocks; else the thread that puts them does, a
  /// few megabytes at a time. The file starts with the packet that opens the sequence.
  BlockQueue(PacketWriter* out, bool threaded);
  ~BlockQueue();
  BlockQueue(const BlockQueue&) = delete;
  BlockQueue& operator=(const BlockQueue&) = delete;

  /// Starts the writing thread (once; nothing without `threaded`). Call on the thread that
  /// calls Finish, after the loader read the trace's header (see ExportPerfettoTrace) and
  /// before the queue fills.
  void Start();
  /// An empty block with room for `bytes` (memory of a written one, when there is one). Any
  /// thread.
  ProtoWriter Take(size_t bytes);
  /// Hands over `block` (whole packets) to be written at `key`; waits while too many blocks
  /// wait for the disk. Ends the open block of a BlockWriter source. Any thread.
  void Put(ProtoWriter block, BlockKey key);
  /// Says that BlockWriter `source` (< block_source::kWriters) opened a block at `stamp`: no
  /// block after it is written until that one is put.
  void Opened(uint32_t source, TimestampNs stamp);
  /// Says that the analysis handled every event up to `ts_ns` and its tracks were written;
  /// blocks made before it may go to the file.
  void Progress(TimestampNs ts_ns);
  /// Writes everything put and ends the writing thread. Call once no thread puts any more.
  void Finish();

 private:
  struct Held {
    BlockKey key;
    ProtoWriter block;
  };
  // The heap order of held_.
  static bool LowestKeyOnTop(const Held& a, const Held& b) { return b.key < a.key; }
  static constexpr size_t kMaxQueued = 64;           // blocks waiting for the disk
  static constexpr size_t kMaxHeldBytes = 64 << 20;  // held beyond that: released anyway
  static constexpr size_t kMaxFree = 64;           // written blocks kept for reuse
  static constexpr size_t kWriteBlocks = 32;       // blocks gathered per writev, at most
  static constexpr size_t kWriteBytes = 4 << 20;   // bytes gathered per writev, about
  // The writer wakes for kWriteBlocks queued blocks: a queue that holds fewer would wait on it
  // forever.
  static_assert(kMaxQueued > kWriteBlocks);
  bool EnoughToWrite() const {  // caller holds mutex_
    return queued_bytes_ >= kWriteBytes || queued_.size() >= kWriteBlocks;
  }
  // Moves the held blocks no later block can precede to queued_, in key order; all of them
  // once finishing. Caller holds mutex_.
  void Release();
  // Writes (threaded: wakes the writer) when a writev's worth is queued. Caller holds `lock`.
  void WriteIfEnough(std::unique_lock<std::mutex>& lock);
  void Run();                                      // the writing thread
  void Write(std::vector<ProtoWriter>* blocks);    // writes `blocks`
  void Recycle(std::vector<ProtoWriter>* blocks);  // empties `blocks`; caller holds mutex_
  void WriteQueued();  // writes queued_ on this thread (one-thread export); caller holds mutex_

  PacketWriter* out_;
  std::mutex mutex_;
  std::condition_variable work_;  // the writing thread waits for enough to write
  std::condition_variable room_;  // threads putting blocks wait for room in the queue
  std::vector<Held> held_;        // a heap, lowest key on top: put, not yet released
  std::vector<ProtoWriter> queued_;  // released, to write, in key order
  std::vector<ProtoWriter> free_;    // written, for reuse
  size_t queued_bytes_ = 0;
  size_t held_bytes_ = 0;  // bytes in held_
  TimestampNs progress_ns_ = kBeforeTrace;
  std::array<TimestampNs, block_source::kWriters> open_stamps_;  // kAfterTrace: none open
  bool threaded_ = false;
  bool finishing_ = false;
  bool started_ = false;  // Start ran (the writing thread began, or ended already)
  std::thread thread_;
};

/// One source's packets, encoded into a block that goes to the queue when it holds
/// `block_bytes`, or when the trace time it is told (SetNow) has moved a millisecond past the
/// block's first packet: a block's content depends only on what was written and when, never
/// on the threads.
class BlockWriter {
 public:
  /// Packets of `source` (a block_source below kWriters) go to `queue` in blocks of about
  /// `block_bytes`.
  BlockWriter(BlockQueue* queue, uint32_t source, size_t block_bytes = 128 << 10)
      : queue_(queue), source_(source), block_bytes_(block_bytes), block_(queue->Take(Room())) {}
  ~BlockWriter() { Flush(); }
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;

  /// The trace time of what is written next (the analysis' event that made it). Ends the open
  /// block when that is a millisecond past its first packet's.
  void SetNow(TimestampNs ts_ns) {
    now_ns_ = ts_ns;
    if (open_ && ts_ns > first_ns_ &&
        static_cast<uint64_t>(ts_ns) - static_cast<uint64_t>(first_ns_) > kBlockSpanNs) {
      Flush();
    }
  }

  /// Starts a TracePacket; returns the writer of its fields (in field-number order), valid
  /// until EndPacket. `length_bytes`: room for its length (see ProtoWriter::BeginNested).
  ProtoWriter& BeginPacket(size_t length_bytes = 2) {
    packet_ = packet_framing::Begin(block_, length_bytes);
    return block_;
  }
  /// The writer of the open packet's fields.
  ProtoWriter& packet() { return block_; }
  /// Writes trusted_packet_sequence_id into the open packet.
  void SequenceId() { packet_framing::SequenceId(block_); }
  /// Ends the open packet (PacketsDone after the packets that belong together).
  void EndPacket() { packet_framing::End(block_, packet_); }
  /// The block, to append whole packets to (then PacketsDone).
  ProtoWriter& block() { return block_; }
  /// The packets so far go together (a slice's begin and end stay next to each other in the
  /// file); a full block goes to the queue.
  void PacketsDone() {
    if (!open_ && block_.size() > 0) {
      open_ = true;
      first_ns_ = now_ns_;
      queue_->Opened(source_, first_ns_);
    }
    if (block_.size() >= block_bytes_) Flush();
  }
  /// Hands what the block holds to the queue.
  void Flush() {
    if (block_.size() == 0) return;
    queue_->Put(std::move(block_), BlockKey{open_ ? first_ns_ : now_ns_, source_, seq_++});
    open_ = false;
    block_ = queue_->Take(Room());
  }

 private:
  // The trace time a block spans at most: the blocks after it wait no longer than that.
  static constexpr uint64_t kBlockSpanNs = 1'000'000;
  // A full block and the packet that made it full, mostly.
  size_t Room() const { return block_bytes_ + block_bytes_ / 4; }

  BlockQueue* queue_;
  uint32_t source_;
  size_t block_bytes_;
  ProtoWriter block_;
  ProtoWriter::Nested packet_;
  TimestampNs now_ns_ = kBeforeTrace;
  TimestampNs first_ns_ = kBeforeTrace;  // the open block's first packet's time
  bool open_ = false;                    // the block holds packets (Opened was said)
  uint64_t seq_ = 0;
};

}  // namespace napiscope::perfetto_export
