// Protobuf wire encoding (varints, fixed64, length-delimited fields) into one growing byte
// buffer, without libprotobuf: the export writes every packet with it (the hottest ones through
// RawFields: one bounds check per packet instead of one per field). A nested message is
// written in place: its length is reserved before the body and filled in when it ends (the body
// moves only when the length needs another number of bytes than reserved), so the bytes are the
// canonical encoding libprotobuf writes for the same fields in field-number order. The writes
// are inlined: with constant field numbers the tags fold into constant bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace napiscope::perfetto_export {

/// The wire format's pieces, shared by ProtoWriter and RawFields.
namespace wire {

inline constexpr size_t kMaxVarintBytes = 10;
inline constexpr uint32_t kVarint = 0;
inline constexpr uint32_t kFixed64 = 1;
inline constexpr uint32_t kLength = 2;

inline constexpr uint64_t Tag(uint32_t field, uint32_t wire_type) {
  return (static_cast<uint64_t>(field) << 3) | wire_type;
}

/// Bytes of `value` as a varint.
inline size_t VarintSize(uint64_t value) {
  size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++bytes;
  }
  return bytes;
}

[[gnu::always_inline]] inline uint8_t* PutVarint(uint64_t value, uint8_t* p) {
  while (value >= 0x80) {
    *p++ = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  *p++ = static_cast<uint8_t>(value);
  return p;
}

// memcpy, without a call for the short strings most fields hold (names, comms): two
// overlapping fixed-size copies.
[[gnu::always_inline]] inline void CopyBytes(uint8_t* to, const char* from, size_t size) {
  if (size >= 8 && size <= 16) {
    uint64_t head, tail;
    std::memcpy(&head, from, 8);
    std::memcpy(&tail, from + size - 8, 8);
    std::memcpy(to, &head, 8);
    std::memcpy(to + size - 8, &tail, 8);
  } else if (size >= 4 && size < 8) {
    uint32_t head, tail;
    std::memcpy(&head, from, 4);
    std::memcpy(&tail, from + size - 4, 4);
    std::memcpy(to, &head, 4);
    std::memcpy(to + size - 4, &tail, 4);
  } else if (size < 4) {
    for (size_t i = 0; i < size; ++i) to[i] = static_cast<uint8_t>(from[i]);
  } else {
    std::memcpy(to, from, size);
  }
}

/// Ends a nested message whose length was given one byte at `length_at` and whose body of
/// `body_size` bytes (128 or more) follows it: moves the body to make room for the length.
/// Returns the end of the body.
[[gnu::noinline]] inline uint8_t* EndLongNested(uint8_t* length_at, size_t body_size) {
  size_t needed = VarintSize(body_size);
  std::memmove(length_at + needed, length_at + 1, body_size);
  PutVarint(body_size, length_at);
  return length_at + needed + body_size;
}

}  // namespace wire

/// Fields written through one pointer into room reserved beforehand (ProtoWriter::Room): no
/// bounds check and no size update per field, for the packets written millions of times. The
/// bytes are those ProtoWriter writes for the same calls. The room must hold the fields, and
/// for each nested message whose length takes more than one byte, those bytes more.
class RawFields {
 public:
  explicit RawFields(uint8_t* at) : p_(at) {}

  /// Where the next field goes.
  uint8_t* end() const { return p_; }

  /// A varint field (uint32/uint64/bool/enum).
  [[gnu::always_inline]] void Varint(uint32_t field, uint64_t value) {
    p_ = wire::PutVarint(wire::Tag(field, wire::kVarint), p_);
    p_ = wire::PutVarint(value, p_);
  }
  /// A signed integer field (int32 or int64).
  [[gnu::always_inline]] void Int(uint32_t field, int64_t value) {
    Varint(field, static_cast<uint64_t>(value));
  }
  /// A fixed64 field.
  [[gnu::always_inline]] void Fixed64(uint32_t field, uint64_t value) {
    p_ = wire::PutVarint(wire::Tag(field, wire::kFixed64), p_);
    for (int i = 0; i < 8; ++i) p_[i] = static_cast<uint8_t>(value >> (8 * i));
    p_ += 8;
  }
  /// A double field.
  [[gnu::always_inline]] void Double(uint32_t field, double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    Fixed64(field, bits);
  }
  /// A string or bytes field.
  [[gnu::always_inline]] void String(uint32_t field, std::string_view value) {
    p_ = wire::PutVarint(wire::Tag(field, wire::kLength), p_);
    p_ = wire::PutVarint(value.size(), p_);
    wire::CopyBytes(p_, value.data(), value.size());
    p_ += value.size();
  }
  /// Starts a nested message field, a byte reserved for its length; returns where the length
  /// goes, for EndNested.
  [[gnu::always_inline]] uint8_t* BeginNested(uint32_t field) {
    p_ = wire::PutVarint(wire::Tag(field, wire::kLength), p_);
    return p_++;
  }
  /// Ends the nested message whose length goes at `length_at`.
  [[gnu::always_inline]] void EndNested(uint8_t* length_at) {
    auto body_size = static_cast<size_t>(p_ - length_at - 1);
    if (body_size < 0x80) [[likely]] {
      *length_at = static_cast<uint8_t>(body_size);
    } else {
      p_ = wire::EndLongNested(length_at, body_size);
    }
  }

 private:
  uint8_t* p_;
};

/// Appends protobuf fields to a byte buffer. Callers write a message's fields in field-number
/// order, as libprotobuf does, so that the output equals its serialization.
class ProtoWriter {
 public:
  ProtoWriter() = default;
  ProtoWriter(ProtoWriter&& other) noexcept { *this = std::move(other); }
  ProtoWriter& operator=(ProtoWriter&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  /// Where a nested message's length goes; returned by BeginNested, given back to EndNested.
  struct Nested {
    size_t length_at = 0;     ///< offset of the reserved length bytes
    size_t length_bytes = 0;  ///< how many were reserved
  };

  /// A varint field (uint32/uint64/bool/enum).
  [[gnu::always_inline]] void Varint(uint32_t field, uint64_t value) {
    uint8_t* p = Space(kMaxVarintBytes * 2);
    p = PutVarint(Tag(field, kWireVarint), p);
    size_ = static_cast<size_t>(PutVarint(value, p) - data_.get());
  }
  /// A signed integer field (int32 or int64: negative values take 10 bytes, as in protobuf).
  [[gnu::always_inline]] void Int(uint32_t field, int64_t value) {
    Varint(field, static_cast<uint64_t>(value));
  }
  /// A fixed64 field.
  [[gnu::always_inline]] void Fixed64(uint32_t field, uint64_t value) {
    uint8_t* p = Space(kMaxVarintBytes + 8);
    p = PutVarint(Tag(field, kWireFixed64), p);
    for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
    size_ = static_cast<size_t>(p + 8 - data_.get());
  }
  /// A double field (fixed64 wire type, IEEE 754 bits).
  [[gnu::always_inline]] void Double(uint32_t field, double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    Fixed64(field, bits);
  }
  /// A string or bytes field.
  [[gnu::always_inline]] void String(uint32_t field, std::string_view value) {
    uint8_t* p = Space(kMaxVarintBytes * 2 + value.size());
    p = PutVarint(Tag(field, kWireLength), p);
    p = PutVarint(value.size(), p);
    CopyBytes(p, value.data(), value.size());
    size_ = static_cast<size_t>(p + value.size() - data_.get());
  }
  /// Bytes already encoded (fields of the current message, or whole messages with their tags).
  [[gnu::always_inline]] void Raw(std::string_view bytes) {
    uint8_t* p = Space(bytes.size());
    if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
    size_ += bytes.size();
  }

  /// Starts a nested message field; its fields follow until EndNested. `length_bytes` is the
  /// room reserved for the length (1: under 128 bytes, 2: under 16 KiB, 3: under 2 MiB): a good
  /// guess spares moving the body.
  [[gnu::always_inline]] Nested BeginNested(uint32_t field, size_t length_bytes = 1) {
    uint8_t* p = Space(kMaxVarintBytes + length_bytes);
    p = PutVarint(Tag(field, kWireLength), p);
    Nested nested{static_cast<size_t>(p - data_.get()), length_bytes};
    size_ = nested.length_at + length_bytes;
    return nested;
  }
  /// Ends the nested message `nested`: writes its length, moving the body if the length needs
  /// another number of bytes than reserved.
  [[gnu::always_inline]] void EndNested(Nested nested) {
    size_t body_size = size_ - nested.length_at - nested.length_bytes;
    if (body_size < 0x80 && nested.length_bytes == 1) {
      data_[nested.length_at] = static_cast<uint8_t>(body_size);
    } else {
      EndNestedMoving(nested);
    }
  }

  /// The bytes written so far.
  std::string_view bytes() const { return {reinterpret_cast<const char*>(data_.get()), size_}; }
  /// How many bytes were written so far.
  size_t size() const { return size_; }
  /// Makes room for `bytes` in all without growing again.
  void Reserve(size_t bytes) {
    if (bytes > capacity_) Grow(bytes);
  }
  /// Forgets the bytes; the buffer's memory is kept for reuse.
  void Clear() { size_ = 0; }

  /// Bytes of `value` as a varint.
  static size_t VarintSize(uint64_t value) { return wire::VarintSize(value); }

  /// Room for `bytes` more, to be written through the RawFields returned (nothing else may
  /// write in between); Commit it after.
  [[gnu::always_inline]] RawFields Room(size_t bytes) { return RawFields(Space(bytes)); }
  /// Takes what was written through `fields` (from Room).
  [[gnu::always_inline]] void Commit(const RawFields& fields) {
    size_ = static_cast<size_t>(fields.end() - data_.get());
  }

 private:
  static constexpr size_t kMaxVarintBytes = wire::kMaxVarintBytes;
  static constexpr uint32_t kWireVarint = wire::kVarint;
  static constexpr uint32_t kWireFixed64 = wire::kFixed64;
  static constexpr uint32_t kWireLength = wire::kLength;

  static constexpr uint64_t Tag(uint32_t field, uint32_t wire_type) {
    return wire::Tag(field, wire_type);
  }
  [[gnu::always_inline]] static void CopyBytes(uint8_t* to, const char* from, size_t size) {
    wire::CopyBytes(to, from, size);
  }
  [[gnu::always_inline]] static uint8_t* PutVarint(uint64_t value, uint8_t* p) {
    return wire::PutVarint(value, p);
  }
  // Room for `bytes` more after the end; returns where they go.
  [[gnu::always_inline]] uint8_t* Space(size_t bytes) {
    if (size_ + bytes > capacity_) Grow(size_ + bytes);
    return data_.get() + size_;
  }
  // EndNested when the length does not fit one reserved byte: the body moves if the length
  // needs another number of bytes than reserved.
  [[gnu::noinline]] void EndNestedMoving(Nested nested) {
    size_t body_at = nested.length_at + nested.length_bytes;
    size_t body_size = size_ - body_at;
    size_t needed = VarintSize(body_size);
    if (needed != nested.length_bytes) {
      if (needed > nested.length_bytes) Space(needed - nested.length_bytes);
      std::memmove(data_.get() + nested.length_at + needed, data_.get() + body_at, body_size);
      size_ = nested.length_at + needed + body_size;
    }
    PutVarint(body_size, data_.get() + nested.length_at);
  }
  [[gnu::noinline]] void Grow(size_t needed) {
    size_t capacity = capacity_ == 0 ? 4096 : capacity_;
    while (capacity < needed) capacity *= 2;
    auto data = std::make_unique_for_overwrite<uint8_t[]>(capacity);
    if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
    data_ = std::move(data);
    capacity_ = capacity;
  }

  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace napiscope::perfetto_export
