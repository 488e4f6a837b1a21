// Protobuf wire encoding into a growing byte buffer with libprotobuf's CodedOutputStream
// primitives, for the hot path (one FtraceEvent per trace event): no message object per event.
// Field numbers come from the generated classes of perfetto_trace.proto, so the .proto stays
// the one definition; tests check the bytes equal those of the generated classes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <google/protobuf/io/coded_stream.h>

namespace napiscope::perfetto_export {

/// Appends fields to `bytes`; nested messages are written into a second buffer and appended
/// with their length.
class ProtoBuffer {
 public:
  /// A varint field (uint32/uint64/bool/enum; int32/int64 as two's complement, as protobuf does).
  void Varint(int field, uint64_t value) {
    Tag(field, 0);
    Raw(value);
  }
  /// A signed integer field (int32 or int64: negative values take 10 bytes, as in protobuf).
  void Int(int field, int64_t value) { Varint(field, static_cast<uint64_t>(value)); }
  /// A string or bytes field.
  void String(int field, std::string_view value) {
    Tag(field, 2);
    Raw(value.size());
    bytes_.append(value.data(), value.size());
  }
  /// A nested message field whose encoding is `body`.
  void Message(int field, const ProtoBuffer& body) { String(field, body.bytes_); }
  /// A fixed64 field.
  void Fixed64(int field, uint64_t value) {
    Tag(field, 1);
    uint8_t raw[8];
    google::protobuf::io::CodedOutputStream::WriteLittleEndian64ToArray(value, raw);
    bytes_.append(reinterpret_cast<const char*>(raw), 8);
  }

  const std::string& bytes() const { return bytes_; }
  void Clear() { bytes_.clear(); }

 private:
  void Tag(int field, int wire_type) { Raw((static_cast<uint64_t>(field) << 3) | wire_type); }
  void Raw(uint64_t varint) {
    uint8_t raw[10];
    uint8_t* end = google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(varint, raw);
    bytes_.append(reinterpret_cast<const char*>(raw), static_cast<size_t>(end - raw));
  }

  std::string bytes_;
};

}  // namespace napiscope::perfetto_export
