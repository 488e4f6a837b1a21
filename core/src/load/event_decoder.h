// Decodes raw ring-buffer records into Events using field offsets resolved once per event id.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "napiscope/event_sink.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;

namespace napiscope::internal {

/// The id and name of an event format napiscope reads no field of (left unparsed).
struct FormatIdentity {
  int id = -1;
  std::string system;
  std::string name;
};

/// The event formats of a trace: those parsed in `tep`, and the identity of the others.
struct TraceFormats {
  tep_handle* tep = nullptr;
  std::vector<FormatIdentity> unparsed;
};

/// Where one field sits in a record, resolved from the event's format.
struct FieldRef {
  int offset = -1;
  int size = 0;
  bool is_signed = false;
  bool dynamic = false;   ///< __data_loc: a 32-bit (len << 16 | offset) locator
  bool relative = false;  ///< __rel_loc: locator offset counts from the end of the field
  int8_t int_shift = -1;  ///< 64 - 8 * size for an integer of 1, 2, 4 or 8 bytes, else -1
  bool valid() const { return offset >= 0; }
};

/// Decoding recipe for one event id.
struct EventRecipe {
  EventKind kind = EventKind::kOther;
  StringId name = 0;
  bool known = false;            ///< the id exists in the file's formats
  StringId handler = 0;          ///< irq_vectors: the vector's name
  std::vector<FieldRef> fields;  ///< indexed as SchemaOf(kind).fields (event_schema.h)
};

/// Turns records of one trace into Events; interns strings into a StringTable.
/// Every event format is resolved in the constructor, so Decode never touches the tep handle
/// and decoders of one trace may run in parallel threads (each with its own StringTable).
class EventDecoder {
 public:
  EventDecoder(const TraceFormats& formats, StringTable* strings);
  /// Interns into the context's strings.
  EventDecoder(const TraceFormats& formats, TraceContext* context)
      : EventDecoder(formats, &context->strings) {}

  /// Decodes `size` bytes of record `data` into `event`; false when the id is unknown or
  /// the record is too short for its format.
  bool Decode(const void* data, int size, Event* event);

 private:
  const EventRecipe& RecipeFor(int id);
  // An integer field, sign-extended when signed; 0 when the record does not hold it. Inline:
  // where the record has 8 bytes from the field on and no byte swap is needed, they are read at
  // once and the field's own bytes kept.
  [[gnu::always_inline]] int64_t ReadInt(const uint8_t* data, int size,
                                         const FieldRef& field) const {
    if (std::endian::native == std::endian::little && field.int_shift >= 0 && !swap_bytes_ &&
        field.offset + 8 <= size) [[likely]] {
      uint64_t raw;
      std::memcpy(&raw, data + field.offset, 8);
      raw <<= field.int_shift;
      return field.is_signed ? static_cast<int64_t>(raw) >> field.int_shift
                             : static_cast<int64_t>(raw >> field.int_shift);
    }
    return ReadIntField(data, size, field);
  }
  // ReadInt for any field and record: byte by size, swapped when the file's order differs.
  int64_t ReadIntField(const uint8_t* data, int size, const FieldRef& field) const;
  StringId ReadString(const uint8_t* data, int size, const FieldRef& field);

  // Recently seen strings of up to 16 bytes (comms, device names), zero-padded, and their ids,
  // so most string fields cost two 8-byte compares instead of a hash-table lookup.
  struct ShortStringEntry {
    uint64_t low = 0, high = 0;
    StringId id = 0;
    bool valid = false;
  };
  static constexpr size_t kShortStringCacheSize = 256;
  static constexpr size_t kShortStringBytes = 16;

  StringTable* strings_;
  std::vector<ShortStringEntry> short_strings_ =
      std::vector<ShortStringEntry>(kShortStringCacheSize);
  bool swap_bytes_ = false;  // the file's byte order differs from this machine's
  FieldRef common_type_, common_flags_, common_pid_;
  std::vector<EventRecipe> recipes_;  // indexed by event id (ids are small integers)
  EventRecipe unknown_;
};

}  // namespace napiscope::internal
