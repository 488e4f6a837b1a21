// Every event of a trace for the event list, in compact columns: per CPU a byte stream of
// delta-encoded events with an index every 64 events, plus one byte per event for the merged
// order. About 8 bytes per event instead of a row object per event.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event_sink.h"

namespace napiscope::gui {

/// Where a row of the merged (time-ordered) list is: its CPU and its index within that CPU.
struct EventPosition {
  uint16_t cpu = 0;
  uint32_t index = 0;
};

/// An EventSink that keeps every event compactly for random access by merged row.
class EventIndex : public EventSink {
 public:
  void OnEvent(const Event& event) override;
  void OnEnd() override;

  /// Number of events (rows of the merged list), missed-events markers included.
  uint64_t size() const { return rows_; }

  /// Number of CPU streams.
  int cpus() const { return static_cast<int>(cpus_.size()); }

  /// Events of `cpu`.
  uint32_t size(int cpu) const { return cpus_[cpu].count; }

  /// The event at merged row `row` (< size()).
  Event At(uint64_t row) const;

  /// The CPU and per-CPU index of merged row `row`.
  EventPosition PositionOf(uint64_t row) const;

  /// The `index`-th event of `cpu`.
  Event Get(int cpu, uint32_t index) const;

  /// Timestamp of merged row `row`.
  TimestampNs TimestampAt(uint64_t row) const;

  /// First merged row at or after `ts_ns` (size() when none).
  uint64_t LowerBound(TimestampNs ts_ns) const;

  /// Calls `visit(row, event)` for rows [from, to) in order, decoding each CPU's stream once;
  /// stops early when `visit` returns false.
  template <typename Visit>
  void Scan(uint64_t from, uint64_t to, Visit visit) const;

  /// Bytes held (capacity).
  size_t BytesUsed() const;

 private:
  static constexpr uint32_t kBlock = 64;       // events per per-CPU index entry
  static constexpr uint64_t kCheckpoint = 8192;  // merged rows per per-CPU count checkpoint

  struct BlockStart {
    uint64_t offset;   // byte offset in the stream
    TimestampNs ts_ns;  // timestamp of the event before the block (deltas start from it)
    int32_t pid;        // pid of the event before the block
    uint8_t flags;      // flags of the event before the block
  };
  // Bytes in 64 KiB chunks: growing never copies, an event never spans two chunks, and a CPU
  // with few events wastes little.
  class ChunkedBytes {
   public:
    static constexpr int kShift = 16;
    static constexpr uint64_t kChunk = uint64_t{1} << kShift;
    /// Room for `bytes` contiguous bytes; returns where they go (global offset).
    uint8_t* Reserve(size_t bytes, uint64_t* offset);
    /// Marks `bytes` of the last reservation used.
    void Commit(size_t bytes) { used_ += bytes; }
    uint64_t end() const { return (chunks_.empty() ? 0 : (chunks_.size() - 1) * kChunk) + used_; }
    const uint8_t* At(uint64_t offset) const {
      return chunks_[offset >> kShift].get() + (offset & (kChunk - 1));
    }
    size_t BytesUsed() const { return chunks_.size() * kChunk; }

   private:
    std::vector<std::unique_ptr<uint8_t[]>> chunks_;
    size_t used_ = 0;  // in the last chunk
  };
  struct CpuStream {
    ChunkedBytes bytes;
    std::vector<BlockStart> blocks;
    uint32_t count = 0;
    TimestampNs last_ts_ns = 0;
    int32_t last_pid = 0;
    uint8_t last_flags = 0;
  };
  // Decodes one event at `offset` of `stream`, updating the running state.
  Event Decode(const CpuStream& stream, int cpu, uint64_t* offset, TimestampNs* ts_ns,
               int32_t* pid, uint8_t* flags) const;

  std::vector<CpuStream> cpus_;
  uint16_t CpuOfRow(uint64_t row) const {
    return static_cast<uint16_t>(order_.At(row)[0]) |
           static_cast<uint16_t>(wide_ ? order_high_.At(row)[0] << 8 : 0);
  }

  uint64_t rows_ = 0;
  ChunkedBytes order_;       // low byte of the CPU of each merged row
  ChunkedBytes order_high_;  // high byte, kept only once a CPU above 255 appears
  bool wide_ = false;
  std::vector<std::vector<uint32_t>> checkpoints_;  // per kCheckpoint rows: events per CPU before
  std::vector<TimestampNs> checkpoint_ts_;          // timestamp of each checkpoint's first row
  std::vector<uint64_t> napis_;                     // interned napi struct addresses
  // The name each kind had first: events of that kind with that name do not store it.
  std::array<StringId, static_cast<size_t>(EventKind::kCount)> kind_names_{};
  std::array<bool, static_cast<size_t>(EventKind::kCount)> kind_named_{};
  absl::flat_hash_map<uint64_t, uint32_t> napi_ids_;
};

template <typename Visit>
void EventIndex::Scan(uint64_t from, uint64_t to, Visit visit) const {
  struct Cursor {
    bool ready = false;
    uint64_t offset = 0;
    TimestampNs ts_ns = 0;
    int32_t pid = 0;
    uint8_t flags = 0;
  };
  std::vector<Cursor> cursors(cpus_.size());
  to = std::min<uint64_t>(to, size());
  for (uint64_t row = from; row < to; ++row) {
    uint16_t cpu = CpuOfRow(row);
    Cursor& cursor = cursors[cpu];
    if (!cursor.ready) {
      EventPosition position = PositionOf(row);
      const CpuStream& stream = cpus_[cpu];
      const BlockStart& block = stream.blocks[position.index / kBlock];
      cursor = {true, block.offset, block.ts_ns, block.pid, block.flags};
      for (uint32_t i = position.index / kBlock * kBlock; i < position.index; ++i) {
        Decode(stream, cpu, &cursor.offset, &cursor.ts_ns, &cursor.pid, &cursor.flags);
      }
    }
    Event event =
        Decode(cpus_[cpu], cpu, &cursor.offset, &cursor.ts_ns, &cursor.pid, &cursor.flags);
    if (!visit(row, event)) return;
  }
}

}  // namespace napiscope::gui
