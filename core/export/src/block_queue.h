// Blocks of whole encoded TracePackets on their way to the file. Any thread encodes packets
// into a block of its own (the analysing thread its TrackEvents, each decoding thread its CPUs'
// ftrace bundles) and hands the block over; one thread writes the blocks in the order they came
// (or the calling thread, when the export runs on one). Perfetto orders packets by time itself,
// so blocks of different threads may interleave. A bounded number of blocks is in flight:
// memory does not grow with the trace.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "packet_writer.h"
#include "proto_writer.h"

namespace napiscope::perfetto_export {

/// Blocks from any thread to the file, written in the order they were put.
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
  /// Hands over `block` (whole packets) to be written; waits while too many are queued. Any
  /// thread.
  void Put(ProtoWriter block);
  /// Writes everything put and ends the writing thread. Call once no thread puts any more.
  void Finish();

 private:
  static constexpr size_t kMaxQueued = 64;         // blocks waiting to be written
  static constexpr size_t kMaxFree = 64;           // written blocks kept for reuse
  static constexpr size_t kWriteBlocks = 32;       // blocks gathered per writev, at most
  static constexpr size_t kWriteBytes = 4 << 20;   // bytes gathered per writev, about
  bool EnoughToWrite() const {  // caller holds mutex_
    return queued_bytes_ >= kWriteBytes || queued_.size() >= kWriteBlocks;
  }
  void Run();                                      // the writing thread
  void Write(std::vector<ProtoWriter>* blocks);    // writes `blocks`
  void Recycle(std::vector<ProtoWriter>* blocks);  // empties `blocks`; caller holds mutex_

  PacketWriter* out_;
  std::mutex mutex_;
  std::condition_variable work_;  // the writing thread waits for enough to write
  std::condition_variable room_;  // threads putting blocks wait for room in the queue
  std::vector<ProtoWriter> queued_;  // to write, oldest first
  std::vector<ProtoWriter> free_;    // written, for reuse
  size_t queued_bytes_ = 0;
  bool threaded_ = false;
  bool finishing_ = false;
  bool started_ = false;  // Start ran (the writing thread began, or ended already)
  std::thread thread_;
};

/// One thread's packets, encoded into a block that goes to the queue when it holds
/// `block_bytes`.
class BlockWriter {
 public:
  /// Packets go to `queue` in blocks of about `block_bytes`.
  explicit BlockWriter(BlockQueue* queue, size_t block_bytes = 128 << 10)
      : queue_(queue), block_bytes_(block_bytes), block_(queue->Take(Room())) {}
  ~BlockWriter() { Flush(); }
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;

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
    if (block_.size() >= block_bytes_) Flush();
  }
  /// Hands what the block holds to the queue.
  void Flush() {
    if (block_.size() == 0) return;
    queue_->Put(std::move(block_));
    block_ = queue_->Take(Room());
  }

 private:
  // A full block and the packet that made it full, mostly.
  size_t Room() const { return block_bytes_ + block_bytes_ / 4; }

  BlockQueue* queue_;
  size_t block_bytes_;
  ProtoWriter block_;
  ProtoWriter::Nested packet_;
};

}  // namespace napiscope::perfetto_export
