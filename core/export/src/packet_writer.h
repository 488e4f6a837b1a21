// Streams TracePackets to a file as the repeated `packet` field of a perfetto.protos.Trace,
// encoded in place in one buffer that is written out in large blocks.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <absl/status/status.h>

#include "perfetto_fields.h"
#include "proto_writer.h"

namespace napiscope::perfetto_export {

/// Writes packets one after the other; nothing is kept once written.
class PacketWriter {
 public:
  PacketWriter() = default;
  ~PacketWriter();
  PacketWriter(const PacketWriter&) = delete;
  PacketWriter& operator=(const PacketWriter&) = delete;

  /// Opens `path` for writing ("-": stdout).
  absl::Status Open(const std::string& path);

  /// Starts a TracePacket and returns the writer of its fields (in field-number order), valid
  /// until EndPacket. `length_bytes`: room for the packet's length (see ProtoWriter).
  ProtoWriter& BeginPacket(size_t length_bytes = 2) {
    packet_ = buffer_.BeginNested(fields::trace::kPacket, length_bytes);
    return buffer_;
  }
  /// The writer of the open packet's fields.
  ProtoWriter& packet() { return buffer_; }
  /// Writes trusted_packet_sequence_id (field 10) into the open packet.
  void SequenceId() { buffer_.Varint(fields::packet::kTrustedPacketSequenceId, kSequenceId); }
  /// Writes sequence_flags (field 13) into the open packet if it is the file's first packet,
  /// which must say that the sequence starts (SEQ_INCREMENTAL_STATE_CLEARED).
  void FirstPacketFlags() {
    if (std::exchange(first_packet_, false)) {
      buffer_.Varint(fields::packet::kSequenceFlags, fields::packet::kSeqIncrementalStateCleared);
    }
  }
  /// Ends the open packet; the buffer goes to the file once it holds a block's worth.
  void EndPacket() {
    buffer_.EndNested(packet_);
    if (buffer_.size() >= kBlockBytes) Flush();
  }

  /// The packet sequence every packet of the file belongs to.
  static constexpr uint32_t kSequenceId = 1;

  /// Flushes and closes; the error names the file.
  absl::Status Close();

  /// Bytes written so far.
  int64_t bytes() const { return written_ + static_cast<int64_t>(buffer_.size()); }

 private:
  static constexpr size_t kBlockBytes = 1 << 20;  // bytes per write(2)
  void Flush();

  std::string path_;
  int fd_ = -1;
  int error_ = 0;  // errno of the first failed write
  ProtoWriter buffer_;
  ProtoWriter::Nested packet_;
  bool first_packet_ = true;
  int64_t written_ = 0;
};

}  // namespace napiscope::perfetto_export
