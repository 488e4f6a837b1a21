// The export's two sides: the analysing thread encodes TrackEvent packets and gathers each
// CPU's events; batches of them go, in order, to a thread that encodes the events as
// FtraceEventBundles and writes the file (or to the analysing thread itself when the export
// runs on one thread). At most a few batches are in flight: memory stays bounded.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "packet_writer.h"
#include "string_mirror.h"

namespace napiscope::perfetto_export {

/// One CPU's events for one FtraceEventBundle, after the batch's packets up to `packets_end`.
struct BundleEntry {
  size_t packets_end = 0;     ///< bytes of the batch's packets written before the bundle
  std::vector<Event> events;  ///< the events, in order
  uint16_t cpu = 0;
  bool lost_before = false;   ///< events were lost before the first
  bool first_packet = false;  ///< the bundle is the file's first packet
};

/// What goes to the writing side at once: packets and bundles, in file order.
struct ExportBatch {
  ProtoWriter packets;                    ///< whole TracePackets (track descriptors and events)
  std::vector<BundleEntry> bundles;       ///< the first `bundle_count` are the batch's
  size_t bundle_count = 0;                ///< the others keep their memory for reuse
  std::vector<std::string_view> strings;  ///< the trace's strings interned since the last batch

  /// Empties the batch, keeping its memory.
  void Clear() {
    packets.Clear();
    for (size_t i = 0; i < bundle_count; ++i) bundles[i].events.clear();
    bundle_count = 0;
    strings.clear();
  }
};

/// Encodes batches into the file: the packets as they are, the events as a bundle.
class BatchEncoder {
 public:
  explicit BatchEncoder(PacketWriter* out) : out_(out) {}
  /// Writes `batch` to the file.
  void Encode(const ExportBatch& batch);

 private:
  void Bundle(const BundleEntry& bundle);

  PacketWriter* out_;
  StringMirror strings_;
};

/// The analysing thread's end: packets are encoded into the current batch, bundles sent.
class BatchQueue {
 public:
  /// With `threaded`, a thread encodes and writes the batches; else the calling thread does.
  BatchQueue(BatchEncoder* encoder, bool threaded);
  ~BatchQueue();
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  /// Starts a TracePacket in the current batch; returns the writer of its fields (in field-
  /// number order), valid until EndPacket.
  ProtoWriter& BeginPacket(size_t length_bytes = 2) {
    packet_ = packet_framing::Begin(current_.packets, length_bytes);
    return current_.packets;
  }
  /// The writer of the open packet's fields.
  ProtoWriter& packet() { return current_.packets; }
  /// Writes trusted_packet_sequence_id into the open packet.
  void SequenceId() { packet_framing::SequenceId(current_.packets); }
  /// Writes sequence_flags into the open packet if it is the file's first.
  void FirstPacketFlags() {
    packet_framing::FirstPacketFlags(current_.packets, std::exchange(first_packet_, false));
  }
  /// Ends the open packet.
  void EndPacket() {
    packet_framing::End(current_.packets, packet_);
    if (current_.packets.size() >= kBatchBytes) Send();
  }

  /// Sends `*events` (taken; an empty vector is left) as the bundle of `cpu`, after the
  /// packets written so far; `strings` is the table the events' string ids refer to.
  void SendBundle(uint16_t cpu, bool lost_before, std::vector<Event>* events,
                  const StringTable& strings);

  /// Sends what remains and waits until everything is written (the thread ends).
  void Finish();

 private:
  static constexpr size_t kBatchBytes = 256 << 10;
  static constexpr size_t kBatchBundles = 16;
  static constexpr size_t kMaxQueuedBatches = 8;
  void Send();
  void Run();  // the writing thread
  bool Empty() const { return current_.packets.size() == 0 && current_.bundle_count == 0; }

  BatchEncoder* encoder_;
  ExportBatch current_;
  ProtoWriter::Nested packet_;
  bool first_packet_ = true;
  size_t strings_sent_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<ExportBatch> full_;   // to write, oldest first
  std::vector<ExportBatch> free_;  // written, for reuse
  bool finishing_ = false;
  std::thread thread_;
};

}  // namespace napiscope::perfetto_export
