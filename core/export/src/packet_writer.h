// Writes TracePackets as the repeated `packet` field of a perfetto.protos.Trace: the framing
// every writer of packets uses, and the file they end up in, written in large blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/status.h>

#include "perfetto_fields.h"
#include "proto_writer.h"

namespace napiscope::perfetto_export {

/// The framing of one TracePacket in a ProtoWriter holding a Trace's packets.
namespace packet_framing {

/// The packet sequence every packet of the file belongs to.
inline constexpr uint32_t kSequenceId = 1;

/// Starts a TracePacket; its fields follow, in field-number order, until End.
/// `length_bytes`: room for the packet's length (see ProtoWriter::BeginNested).
inline ProtoWriter::Nested Begin(ProtoWriter& out, size_t length_bytes = 2) {
  return out.BeginNested(fields::trace::kPacket, length_bytes);
}
/// Writes trusted_packet_sequence_id (field 10).
inline void SequenceId(ProtoWriter& out) {
  out.Varint(fields::packet::kTrustedPacketSequenceId, kSequenceId);
}
/// Writes sequence_flags (field 13) for the file's first packet, which must say that the
/// sequence starts (SEQ_INCREMENTAL_STATE_CLEARED); nothing for the others.
inline void FirstPacketFlags(ProtoWriter& out, bool first) {
  if (first) {
    out.Varint(fields::packet::kSequenceFlags, fields::packet::kSeqIncrementalStateCleared);
  }
}
/// Ends the packet `begun`.
inline void End(ProtoWriter& out, ProtoWriter::Nested begun) { out.EndNested(begun); }

}  // namespace packet_framing

/// The file: packets are encoded into its buffer (or appended encoded), which goes out in
/// large blocks; nothing is kept once written.
class PacketWriter {
 public:
  PacketWriter() = default;
  ~PacketWriter();
  PacketWriter(const PacketWriter&) = delete;
  PacketWriter& operator=(const PacketWriter&) = delete;

  /// Opens `path` for writing ("-": stdout).
  absl::Status Open(const std::string& path);

  /// The buffer packets are encoded into; call PacketsDone after whole packets.
  ProtoWriter& buffer() { return buffer_; }
  /// Writes the buffer out once it holds a block's worth.
  void PacketsDone() {
    if (buffer_.size() >= kBlockBytes) Flush();
  }
  /// Appends whole packets already encoded (with their Trace.packet framing).
  void WriteEncoded(std::string_view packets) {
    buffer_.Raw(packets);
    PacketsDone();
  }

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
  int64_t written_ = 0;
};

}  // namespace napiscope::perfetto_export
