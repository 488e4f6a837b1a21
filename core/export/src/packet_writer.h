// Writes TracePackets as the repeated `packet` field of a perfetto.protos.Trace: the framing
// every writer of packets uses, and the file whole packets end up in.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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
/// Ends the packet `begun`.
inline void End(ProtoWriter& out, ProtoWriter::Nested begun) { out.EndNested(begun); }
/// The file's first packet: it only says that the sequence starts (sequence_flags:
/// SEQ_INCREMENTAL_STATE_CLEARED), so that the packets after it may come in any order.
inline void OpeningPacket(ProtoWriter& out) {
  ProtoWriter::Nested packet = Begin(out, 1);
  SequenceId(out);
  out.Varint(fields::packet::kSequenceFlags, fields::packet::kSeqIncrementalStateCleared);
  End(out, packet);
}

}  // namespace packet_framing

/// The output file. A regular file is written with direct I/O (O_DIRECT) where the file system
/// allows it: the pieces are gathered into an aligned buffer written a megabyte at a time,
/// the last partial block with ordinary I/O. Copying a gigabyte into the page cache cost the
/// export more CPU time than encoding it (about 1.5 s of system time for the 1.26 GB a
/// 20M-event trace makes, here), and the file is not read back. Anything else (stdout, a pipe,
/// /dev/null, a file system refusing O_DIRECT) gets the pieces with one writev(2) per call.
class PacketWriter {
 public:
  PacketWriter() = default;
  ~PacketWriter();
  PacketWriter(const PacketWriter&) = delete;
  PacketWriter& operator=(const PacketWriter&) = delete;

  /// Opens `path` for writing ("-": stdout).
  absl::Status Open(const std::string& path);

  /// Writes `pieces` in order. After a failed write nothing more is written; Close reports it.
  void Write(std::span<const std::string_view> pieces);

  /// Closes; the error of the first failed write or of the close, naming the file.
  absl::Status Close();

  /// Closes after a failed export and removes the file if it is a regular one (no
  /// half-written trace left behind); a device, pipe or stdout is left alone.
  void Abandon();

  /// Bytes handed to Write so far.
  int64_t bytes() const { return bytes_; }

  /// True while writes go out with direct I/O (tests).
  bool direct() const { return direct_ != nullptr; }

 private:
  // Direct I/O writes whole blocks of this size from memory aligned to it.
  static constexpr size_t kDirectAlign = 4096;
  static constexpr size_t kDirectBytes = 1 << 20;  // the gathering buffer

  struct FreeAligned {
    void operator()(char* p) const;
  };

  void WriteBuffered(std::span<const std::string_view> pieces);
  // Writes the first `bytes` of the gathering buffer (a multiple of kDirectAlign); falls back
  // to ordinary I/O for them and what follows if the file system refuses.
  void WriteDirect(size_t bytes);
  // Ends direct I/O: what the buffer holds goes out with ordinary writes from now on.
  void StopDirect();

  std::string path_;
  int fd_ = -1;
  int error_ = 0;  // errno of the first failed write
  int64_t bytes_ = 0;
  bool regular_ = false;  // the output is a regular file (Abandon may remove it)
  std::unique_ptr<char[], FreeAligned> direct_;  // the gathering buffer; null: no direct I/O
  size_t direct_size_ = 0;                       // bytes in it
};

}  // namespace napiscope::perfetto_export
