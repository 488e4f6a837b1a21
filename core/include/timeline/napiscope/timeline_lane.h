// One lane of a CPU's timeline: intervals packed in 12 bytes each (in three arrays of 4 bytes:
// start offsets, durations, items), sorted by start, with a level-of-detail pyramid over blocks
// of intervals so a view of any zoom costs O(pixel columns).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event.h"

namespace napiscope {

/// What an interval of a lane looks like to a query: its time and its interned item.
struct TimelineInterval {
  TimestampNs start_ns = 0;
  TimestampNs end_ns = 0;
  uint32_t item = 0;   ///< index into Timeline::items()
  uint32_t index = 0;  ///< position in its lane (intervals are sorted by start)

  /// Length of the interval in ns.
  TimestampNs duration_ns() const { return end_ns - start_ns; }
  bool operator==(const TimelineInterval&) const = default;
};

/// What a lane needs to know about an item to aggregate it: its colour key and whether it is
/// marked (an exhausted NAPI poll).
struct LaneItemTraits {
  uint16_t key = 0;
  bool marked = false;
};

/// Summary of the intervals that start in one pixel column and are narrower than the column.
struct TimelineColumn {
  uint32_t count = 0;          ///< intervals summarised
  uint32_t marked = 0;         ///< of which marked (exhausted NAPI polls)
  TimestampNs busy_ns = 0;     ///< their summed duration
  TimestampNs longest_ns = 0;  ///< the longest of them
  uint16_t dominant_key = 0;   ///< the key with the most time (exact within a block of 32
                               ///< intervals, approximate across blocks); valid when count > 0
};

/// The part of a lane a view shows: every interval when few, else per-column summaries plus the
/// intervals at least one column wide (those are drawn individually and left out of the columns).
struct LaneSlice {
  bool aggregated = false;
  std::vector<TimelineColumn> columns;  ///< one per pixel column when aggregated, else empty
  std::vector<TimelineInterval>
      intervals;  ///< all intervals overlapping the range, or the wide ones
};

/// Neighbouring columns of a slice that look the same (bar height, key, mark): what the views
/// draw as one bar. The counts and times are over the run's columns.
struct ColumnRun {
  size_t first = 0;            ///< the run's first column
  size_t width = 0;            ///< its columns
  double bar = 0;              ///< its bar height, as the view's `bar_of` gave it
  uint16_t key = 0;            ///< the columns' dominant key
  bool marked = false;         ///< the columns hold marked intervals (exhausted NAPI polls)
  int64_t count = 0;           ///< intervals summarised
  TimestampNs busy_ns = 0;     ///< their summed duration
  TimestampNs longest_ns = 0;  ///< the longest of them
};

/// Calls `on_run(const ColumnRun&)` for each run of `slice`'s non-empty columns, left to right.
/// `bar_of(fraction)` is a column's bar height for its busy share of `ns_per_column` (0..1), as
/// the view rounds it; columns join a run only with an equal height. Inline: the GUI walks every
/// column of every lane each frame.
template <typename BarOf, typename OnRun>
void ForEachColumnRun(const LaneSlice& slice, double ns_per_column, BarOf bar_of, OnRun on_run) {
  ColumnRun run;
  for (size_t c = 0; c < slice.columns.size(); ++c) {
    const TimelineColumn& column = slice.columns[c];
    if (column.count == 0) {
      if (run.width > 0) on_run(run);
      run.width = 0;
      continue;
    }
    double bar = bar_of(std::min(1.0, static_cast<double>(column.busy_ns) / ns_per_column));
    bool marked = column.marked > 0;
    bool alike = run.bar == bar && run.key == column.dominant_key && run.marked == marked;
    if (run.width > 0 && alike) {
      ++run.width;
      run.count += column.count;
      run.busy_ns += column.busy_ns;
      run.longest_ns = std::max(run.longest_ns, column.longest_ns);
      continue;
    }
    if (run.width > 0) on_run(run);
    run = {c, 1, bar, column.dominant_key, marked, column.count, column.busy_ns, column.longest_ns};
  }
  if (run.width > 0) on_run(run);
}

/// Intervals of one lane of one CPU. Build once, then query from any thread.
class TimelineLane {
 public:
  /// An interval as the builder collects it.
  struct Entry {
    TimestampNs start_ns;
    TimestampNs end_ns;
    uint32_t item;
  };

  /// Intervals per leaf block of the pyramid; queries scan at most two blocks per column.
  static constexpr size_t kBlockSize = 32;

  /// Sorts `entries` (by start, longer first on ties), packs them and builds the pyramid.
  /// `traits` is indexed by item.
  void Build(std::vector<Entry> entries, std::span<const LaneItemTraits> traits);

  /// Number of intervals.
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  /// The interval at `index` (< size()).
  TimelineInterval At(size_t index) const;

  /// Index of the first interval starting at or after `ts_ns` (size() when none); `hint` is an
  /// index known to start before `ts_ns` (searches begin there: columns ask in time order).
  size_t LowerBound(TimestampNs ts_ns, size_t hint = 0) const;

  /// Appends to `out` every interval with index < `end_index` that ends after `after_ns` and
  /// lasts at least `min_duration_ns`, in index order. Cost grows with what it finds, not size().
  void FindOverlapping(size_t end_index, TimestampNs after_ns, TimestampNs min_duration_ns,
                       std::vector<TimelineInterval>* out) const;

  /// Summary of the intervals [begin, end) from the pyramid: O(log size() + 2 blocks).
  TimelineColumn Summarize(size_t begin, size_t end, std::span<const LaneItemTraits> traits) const;

  /// What a view of [from_ns, to_ns) at `columns` pixel columns draws; `item_mask` (indexed by
  /// item, may be null) hides items whose entry is 0. Unfiltered cost is O(columns * log size());
  /// a filtered query scans the intervals in the range.
  LaneSlice Query(TimestampNs from_ns, TimestampNs to_ns, int columns,
                  std::span<const LaneItemTraits> traits,
                  const std::vector<uint8_t>* item_mask = nullptr) const;

  /// Bytes held (capacity), pyramid included.
  size_t BytesUsed() const;

 private:
  struct Node {
    TimestampNs max_end_ns = 0;
    TimestampNs busy_ns = 0;
    TimestampNs max_duration_ns = 0;
    TimestampNs dominant_ns = 0;
    uint32_t marked = 0;
    uint16_t dominant_key = 0;
  };
  static constexpr uint32_t kEscape = UINT32_MAX;

  // What a leaf block holds (block_flags_): every interval has the block's one colour key
  // (levels_[0][b].dominant_key), none is marked, no duration is past kEscape.
  static constexpr uint8_t kOneKey = 1;
  static constexpr uint8_t kNoneMarked = 2;
  static constexpr uint8_t kNoLongDuration = 4;

  TimestampNs StartOf(size_t index) const;
  TimestampNs DurationOf(size_t index) const;
  TimestampNs LongStart(size_t index) const;
  TimestampNs LongDuration(size_t index) const;
  void BuildPyramid(std::span<const LaneItemTraits> traits);
  // LowerBound(ts_ns) when every interval before `from` starts before ts_ns, searched forward
  // from `from` (a column's end is near its start).
  size_t LowerBoundFrom(TimestampNs ts_ns, size_t from) const;
  // Where Query's column that starts at interval `begin` ends (columns ask in time order, every
  // interval before `begin` starts before ts_ns): LowerBoundFrom(ts_ns, begin), or the first
  // interval of the block holding the column's last interval when at least a block of the
  // column comes before it. Dense columns search only the blocks' first starts.
  size_t ColumnEnd(TimestampNs ts_ns, size_t begin) const;
  // Summarize(begin, end, traits), the same value, with the parts of a block whose intervals
  // share one key summed without a tally step per interval.
  // Adds to `column` (an empty one, the query's own: written in place, not returned, so the
  // query does not read back a struct just stored field by field).
  void SummarizeColumn(size_t begin, size_t end, std::span<const LaneItemTraits> traits,
                       TimelineColumn& column) const;
  void Visit(size_t level, size_t node, size_t end_index, TimestampNs after_ns,
             TimestampNs min_duration_ns, std::vector<TimelineInterval>* out) const;
  LaneSlice ScanFiltered(TimestampNs from_ns, TimestampNs to_ns, int columns,
                         std::span<const LaneItemTraits> traits,
                         const std::vector<uint8_t>& item_mask) const;

  // The intervals, one array per field: a view's column end reads only starts, and the
  // summary of a block whose intervals share one key reads only durations. A wide view reads
  // every interval of its lanes, so the bytes read per interval bound its cost.
  std::vector<uint32_t> start_offsets_;  // from the first start of its block; kEscape: see
                                         // long_start_ns_
  std::vector<uint32_t> durations_;      // kEscape: see long_duration_ns_
  std::vector<uint32_t> items_;
  std::vector<TimestampNs> block_start_ns_;  // start of the first interval of each block
  std::vector<std::vector<Node>> levels_;    // levels_[0][b] sums block b; each level halves
  std::vector<uint8_t> block_flags_;         // kOneKey | kNoneMarked | kNoLongDuration per block
  absl::flat_hash_map<uint32_t, TimestampNs> long_start_ns_;     // by index; rare
  absl::flat_hash_map<uint32_t, TimestampNs> long_duration_ns_;  // by index; >= 4.29 s
};

}  // namespace napiscope
