// Streams TracePackets to a file as the repeated `packet` field of a perfetto.protos.Trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <absl/status/status.h>
#include <google/protobuf/arena.h>

#include "perfetto_trace.pb.h"

namespace napiscope::perfetto_export {

/// Writes packets one after the other; nothing is kept once written.
class PacketWriter {
 public:
  PacketWriter();
  ~PacketWriter();

  /// Opens `path` for writing ("-": stdout).
  absl::Status Open(const std::string& path);

  /// A fresh packet on the writer's arena (sequence id set); valid until the next Write.
  perfetto::protos::TracePacket* NewPacket();

  /// Appends `packet` to the file.
  void Write(const perfetto::protos::TracePacket& packet);

  /// Appends an already encoded TracePacket.
  void WriteEncoded(std::string_view packet);

  /// True for the first packet of the file, which must carry the sequence's flags; each call
  /// after the first returns false.
  bool ClaimFirstPacket() { return std::exchange(first_packet_, false); }

  /// The packet sequence every packet of the file belongs to.
  static constexpr uint32_t kSequenceId = 1;

  /// Flushes and closes; the error names the file.
  absl::Status Close();

  /// Bytes written so far.
  int64_t bytes() const { return bytes_; }

 private:
  struct Output;
  std::string path_;
  std::unique_ptr<Output> output_;
  google::protobuf::Arena arena_;
  bool first_packet_ = true;
  int64_t bytes_ = 0;
};

}  // namespace napiscope::perfetto_export
