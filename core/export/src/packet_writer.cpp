#include "packet_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

namespace napiscope::perfetto_export {
namespace {

// Trace.packet is field 1, length-delimited: tag (1 << 3) | 2.
constexpr uint32_t kTracePacketTag = 0x0a;
// Arena size at which written packets are freed (bounded memory, few allocations).
constexpr uint64_t kArenaBytes = 1 << 20;

}  // namespace

struct PacketWriter::Output {
  explicit Output(int fd) : file(fd) { coded.emplace(&file); }
  google::protobuf::io::FileOutputStream file;
  std::optional<google::protobuf::io::CodedOutputStream> coded;  // destroyed before file closes
};

PacketWriter::PacketWriter() = default;

PacketWriter::~PacketWriter() {
  if (output_ != nullptr) (void)Close();
}

absl::Status PacketWriter::Open(const std::string& path) {
  path_ = path;
  int fd = path == "-" ? STDOUT_FILENO : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    return absl::InvalidArgumentError(path + ": cannot write: " + std::strerror(errno));
  }
  output_ = std::make_unique<Output>(fd);
  output_->file.SetCloseOnDelete(path != "-");
  return absl::OkStatus();
}

perfetto::protos::TracePacket* PacketWriter::NewPacket() {
  // The previous packet was written: its memory can go once the arena has grown.
  if (arena_.SpaceAllocated() > kArenaBytes) arena_.Reset();
  auto* packet = google::protobuf::Arena::CreateMessage<perfetto::protos::TracePacket>(&arena_);
  packet->set_trusted_packet_sequence_id(kSequenceId);
  // SEQ_INCREMENTAL_STATE_CLEARED on the first packet: the sequence starts here.
  if (ClaimFirstPacket()) packet->set_sequence_flags(1);
  return packet;
}

void PacketWriter::Write(const perfetto::protos::TracePacket& packet) {
  if (output_ == nullptr) return;
  size_t size = packet.ByteSizeLong();
  google::protobuf::io::CodedOutputStream& coded = *output_->coded;
  coded.WriteTag(kTracePacketTag);
  coded.WriteVarint64(size);
  packet.SerializeWithCachedSizes(&coded);
  bytes_ += 1 + google::protobuf::io::CodedOutputStream::VarintSize64(size) +
            static_cast<int64_t>(size);
}

void PacketWriter::WriteEncoded(std::string_view packet) {
  if (output_ == nullptr) return;
  google::protobuf::io::CodedOutputStream& coded = *output_->coded;
  coded.WriteTag(kTracePacketTag);
  coded.WriteVarint64(packet.size());
  coded.WriteRaw(packet.data(), static_cast<int>(packet.size()));
  bytes_ += 1 + google::protobuf::io::CodedOutputStream::VarintSize64(packet.size()) +
            static_cast<int64_t>(packet.size());
}

absl::Status PacketWriter::Close() {
  if (output_ == nullptr) return absl::OkStatus();
  bool coded_ok = !output_->coded->HadError();
  output_->coded.reset();
  bool flushed = output_->file.Flush();
  int error = output_->file.GetErrno();
  bool closed = path_ == "-" || output_->file.Close();
  if (path_ != "-") output_->file.SetCloseOnDelete(false);
  output_.reset();
  if (!coded_ok || !flushed || !closed) {
    return absl::InternalError(path_ + ": cannot write: " +
                               std::strerror(error != 0 ? error : EIO));
  }
  return absl::OkStatus();
}


}  // namespace napiscope::perfetto_export
