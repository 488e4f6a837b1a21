#include "napiscope/timeline_lane_entries.h"

#include <cstring>

namespace napiscope {
namespace {

// `to` - `from` as a sign and a magnitude, in 64-bit wrapping arithmetic: exact for any two
// int64 values, and small when they are close (a start just before the previous end included).
struct Difference {
  bool negative;
  uint64_t magnitude;
};

Difference DifferenceOf(TimestampNs from, TimestampNs to) {
  uint64_t forward = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  if (forward < (uint64_t{1} << 63)) return {false, forward};
  return {true, uint64_t{0} - forward};
}

TimestampNs Apply(TimestampNs from, bool negative, uint64_t magnitude) {
  uint64_t base = static_cast<uint64_t>(from);
  return static_cast<TimestampNs>(negative ? base - magnitude : base + magnitude);
}

size_t PutVarint(uint64_t value, uint8_t* out) {
  size_t size = 0;
  while (value >= 0x80) {
    out[size++] = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  out[size++] = static_cast<uint8_t>(value);
  return size;
}

uint64_t GetVarint(const uint8_t* in, size_t* at) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t byte = in[(*at)++];
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

void PutHeader(uint8_t* chunk, size_t used) {
  auto bytes = static_cast<uint16_t>(used);
  std::memcpy(chunk, &bytes, sizeof(bytes));
}

size_t GetHeader(const uint8_t* chunk) {
  uint16_t bytes = 0;
  std::memcpy(&bytes, chunk, sizeof(bytes));
  return bytes;
}

}  // namespace

static_assert(TimelineLaneEntries::kChunkBytes <= UINT16_MAX);

void TimelineLaneEntries::Add(TimestampNs start_ns, TimestampNs end_ns, uint32_t item) {
  if (chunks_.empty() || used_ + kMaxEntryBytes > kChunkBytes) {
    if (!chunks_.empty()) PutHeader(chunks_.back().get(), used_);
    chunks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kChunkBytes));
    used_ = kHeaderBytes;
  }
  Difference start = DifferenceOf(last_end_ns_, start_ns);
  Difference duration = DifferenceOf(start_ns, end_ns);
  // The item carries the two signs in its low bits.
  uint64_t code = uint64_t{item} << 2 | (start.negative ? 2u : 0u) | (duration.negative ? 1u : 0u);
  uint8_t* out = chunks_.back().get();
  used_ += PutVarint(code, out + used_);
  used_ += PutVarint(start.magnitude, out + used_);
  used_ += PutVarint(duration.magnitude, out + used_);
  last_end_ns_ = end_ns;
  ++size_;
}

std::vector<TimelineLane::Entry> TimelineLaneEntries::Take() {
  std::vector<TimelineLane::Entry> entries;
  entries.reserve(size_);
  if (!chunks_.empty()) PutHeader(chunks_.back().get(), used_);
  TimestampNs last_end_ns = 0;
  for (std::unique_ptr<uint8_t[]>& chunk : chunks_) {
    const uint8_t* in = chunk.get();
    size_t end = GetHeader(in);
    for (size_t at = kHeaderBytes; at < end;) {
      uint64_t code = GetVarint(in, &at);
      TimestampNs start_ns = Apply(last_end_ns, (code & 2) != 0, GetVarint(in, &at));
      TimestampNs end_ns = Apply(start_ns, (code & 1) != 0, GetVarint(in, &at));
      entries.push_back({start_ns, end_ns, static_cast<uint32_t>(code >> 2)});
      last_end_ns = end_ns;
    }
    chunk.reset();
  }
  chunks_.clear();
  chunks_.shrink_to_fit();
  used_ = 0;
  last_end_ns_ = 0;
  size_ = 0;
  return entries;
}

size_t TimelineLaneEntries::BytesUsed() const {
  return chunks_.size() * kChunkBytes + chunks_.capacity() * sizeof(std::unique_ptr<uint8_t[]>);
}

}  // namespace napiscope
