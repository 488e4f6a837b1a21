// The intervals of one lane as the builder collects them while a trace loads, about 7 bytes
// each: a byte stream of variable-length integers (the item, the start from the previous
// interval's end, the duration) in fixed-size chunks, so growing never copies and never holds
// twice the data, as a doubling vector of 24-byte entries did. TimelineLane::Build packs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/timeline_lane.h"

namespace napiscope {

/// A lane's intervals in the order added, exactly (any int64 times, negative durations too).
class TimelineLaneEntries {
 public:
  /// Bytes per chunk: a lane's unused tail is under one chunk.
  static constexpr size_t kChunkBytes = 4096;

  /// Appends the interval [start_ns, end_ns) of `item`.
  void Add(TimestampNs start_ns, TimestampNs end_ns, uint32_t item);

  /// Number of intervals added.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// The intervals in the order added, exactly as given to Add; empties this (each chunk is
  /// freed once read).
  std::vector<TimelineLane::Entry> Take();

  /// Bytes held (chunks and the chunk list).
  size_t BytesUsed() const;

 private:
  // A chunk starts with the number of its bytes in use (2 bytes, written when it is full);
  // an entry never spans two chunks.
  static constexpr size_t kHeaderBytes = 2;
  static constexpr size_t kMaxEntryBytes = 3 * 10;  // three varints of up to 64 bits

  std::vector<std::unique_ptr<uint8_t[]>> chunks_;
  size_t used_ = 0;              // bytes in use in the last chunk, its header included
  TimestampNs last_end_ns_ = 0;  // end of the last interval added (starts are stored from it)
  size_t size_ = 0;
};

}  // namespace napiscope
