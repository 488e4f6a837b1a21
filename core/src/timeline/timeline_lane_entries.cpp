#include "napiscope/timeline_lane_entries.h"

#include <algorithm>

namespace napiscope {

void TimelineLaneEntries::Add(TimestampNs start_ns, TimestampNs end_ns, uint32_t item) {
  size_t slot = size_ % kChunkEntries;
  if (slot == 0) {
    chunks_.push_back(std::make_unique_for_overwrite<Chunk>());
    chunks_.back()->first_start_ns = start_ns;
  }
  Chunk& chunk = *chunks_.back();
  TimestampNs offset = start_ns - chunk.first_start_ns;
  int32_t stored_offset = kLongStart;
  if (offset > kLongStart && offset <= INT32_MAX) {
    stored_offset = static_cast<int32_t>(offset);
  } else {
    long_starts_ns_.push_back(start_ns);
  }
  TimestampNs duration = end_ns - start_ns;
  uint32_t stored_duration = kLongDuration;
  if (duration >= 0 && duration < kLongDuration) {
    stored_duration = static_cast<uint32_t>(duration);
  } else {
    long_ends_ns_.push_back(end_ns);
  }
  chunk.entries[slot] = {stored_offset, stored_duration, item};
  ++size_;
}

std::vector<TimelineLane::Entry> TimelineLaneEntries::Take() {
  std::vector<TimelineLane::Entry> entries;
  entries.reserve(size_);
  size_t next_long_start = 0;
  size_t next_long_end = 0;
  for (std::unique_ptr<Chunk>& chunk : chunks_) {
    size_t count = std::min(kChunkEntries, size_ - entries.size());
    for (size_t i = 0; i < count; ++i) {
      const Compact& entry = chunk->entries[i];
      TimestampNs start_ns = entry.start_offset_ns == kLongStart
                                 ? long_starts_ns_[next_long_start++]
                                 : chunk->first_start_ns + entry.start_offset_ns;
      TimestampNs end_ns = entry.duration_ns == kLongDuration ? long_ends_ns_[next_long_end++]
                                                              : start_ns + entry.duration_ns;
      entries.push_back({start_ns, end_ns, entry.item});
    }
    chunk.reset();
  }
  chunks_.clear();
  chunks_.shrink_to_fit();
  long_starts_ns_.clear();
  long_starts_ns_.shrink_to_fit();
  long_ends_ns_.clear();
  long_ends_ns_.shrink_to_fit();
  size_ = 0;
  return entries;
}

size_t TimelineLaneEntries::BytesUsed() const {
  return chunks_.size() * sizeof(Chunk) + chunks_.capacity() * sizeof(std::unique_ptr<Chunk>) +
         (long_starts_ns_.capacity() + long_ends_ns_.capacity()) * sizeof(TimestampNs);
}

}  // namespace napiscope
