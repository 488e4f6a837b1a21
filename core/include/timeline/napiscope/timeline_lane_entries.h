// The intervals of one lane as the builder collects them while a trace loads: 12 bytes each
// (a 32-bit start offset from the chunk's first start, a 32-bit duration, the item) in
// fixed-size chunks, so growing never copies and never holds twice the data, as a doubling
// vector of 24-byte entries did. TimelineLane::Build packs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/timeline_lane.h"

namespace napiscope {

/// A lane's intervals in the order added, about 12 bytes each. A start more than 2.1 s from its
/// chunk's first start, and a duration that does not fit in 32 bits (4.29 s and longer, or
/// negative), are kept whole in side lists, in the same order.
class TimelineLaneEntries {
 public:
  /// Entries per chunk: a lane's unused tail is under one chunk (12 KiB).
  static constexpr size_t kChunkEntries = 1024;

  /// Appends the interval [start_ns, end_ns) of `item`.
  void Add(TimestampNs start_ns, TimestampNs end_ns, uint32_t item);

  /// Number of intervals added.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// The intervals in the order added, exactly as given to Add; empties this (each chunk is
  /// freed once copied).
  std::vector<TimelineLane::Entry> Take();

  /// Bytes held (chunks, the chunk list and the side lists).
  size_t BytesUsed() const;

 private:
  struct Compact {
    int32_t start_offset_ns;  // from the chunk's first start; kLongStart: next of long_starts_ns_
    uint32_t duration_ns;     // kLongDuration: the end is the next of long_ends_ns_
    uint32_t item;
  };
  struct Chunk {
    TimestampNs first_start_ns;
    Compact entries[kChunkEntries];
  };
  static constexpr int32_t kLongStart = INT32_MIN;
  static constexpr uint32_t kLongDuration = UINT32_MAX;

  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::vector<TimestampNs> long_starts_ns_;  // rare
  std::vector<TimestampNs> long_ends_ns_;    // rare
  size_t size_ = 0;
};

}  // namespace napiscope
