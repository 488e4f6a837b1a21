#include "napiscope/timeline_lane.h"

#include <algorithm>
#include <array>
#include <utility>

namespace napiscope {
namespace {

// The first index in [lo, hi) whose start (`start_at(index)`, sorted) is at or after ts_ns;
// hi when none.
template <typename StartAt>
size_t FirstAtOrAfter(StartAt start_at, size_t lo, size_t hi, TimestampNs ts_ns) {
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (start_at(mid) < ts_ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// FirstAtOrAfter over (from, size) when start_at(from) < ts_ns and the answer is likely near
// `from`: gallops forward (`below` starts before ts_ns, the answer is in (below, above]), then
// bisects.
template <typename StartAt>
size_t GallopFirstAtOrAfter(StartAt start_at, size_t from, size_t size, TimestampNs ts_ns) {
  size_t below = from;
  size_t above = size;
  for (size_t step = 1; below + step < size; step *= 2) {
    if (start_at(below + step) >= ts_ns) {
      above = below + step;
      break;
    }
    below += step;
  }
  return FirstAtOrAfter(start_at, below + 1, above, ts_ns);
}

// Time per key over a handful of keys; when full, a new key replaces the smallest one if it
// outweighs it. Exact for up to kSlots keys, which covers a 32-interval block of most lanes.
class KeyTally {
 public:
  void Add(uint16_t key, TimestampNs ns) {
    for (int i = 0; i < used_; ++i) {
      if (slots_[i].first == key) {
        slots_[i].second += ns;
        return;
      }
    }
    if (used_ < kSlots) {
      slots_[used_++] = {key, ns};
      return;
    }
    auto smallest =
        std::min_element(slots_.begin(), slots_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (ns > smallest->second) *smallest = {key, ns};
  }

  // True when adding `key` keeps every key added so far (it is held or a slot is free): then
  // adding n times to it equals adding their sum once.
  bool Keeps(uint16_t key) const {
    if (used_ < kSlots) return true;
    for (int i = 0; i < used_; ++i) {
      if (slots_[i].first == key) return true;
    }
    return false;
  }

  // The key with the most time and that time; {0, 0} when nothing was added.
  std::pair<uint16_t, TimestampNs> Top() const {
    std::pair<uint16_t, TimestampNs> top{0, 0};
    for (int i = 0; i < used_; ++i) {
      if (slots_[i].second > top.second) top = slots_[i];
    }
    return top;
  }

 private:
  static constexpr int kSlots = 8;
  std::array<std::pair<uint16_t, TimestampNs>, kSlots> slots_{};
  int used_ = 0;
};

// Zero-length intervals still count when choosing a colour.
TimestampNs TallyWeight(TimestampNs duration_ns) { return std::max<TimestampNs>(duration_ns, 1); }

// Adds one interval (its duration and item) to a column's summary and its key tally.
void AddToColumn(TimestampNs duration, const LaneItemTraits& item, TimelineColumn& column,
                 KeyTally& tally) {
  ++column.count;
  column.marked += item.marked ? 1 : 0;
  column.busy_ns += duration;
  column.longest_ns = std::max(column.longest_ns, duration);
  tally.Add(item.key, TallyWeight(duration));
}

// Index of the column [boundaries[c], boundaries[c + 1]) that holds `ts_ns`.
size_t ColumnOf(const std::vector<TimestampNs>& boundaries, TimestampNs ts_ns) {
  auto it = std::upper_bound(boundaries.begin(), boundaries.end(), ts_ns);
  return static_cast<size_t>(it - boundaries.begin()) - 1;
}

// Column c covers [boundaries[c], boundaries[c + 1]); columns + 1 values from `from` to `to`.
std::vector<TimestampNs> ColumnBoundaries(TimestampNs from_ns, TimestampNs to_ns, int columns) {
  std::vector<TimestampNs> boundaries(static_cast<size_t>(columns) + 1);
  // from + floor(span * c / columns) in integers, without a division per column (the GUI asks
  // for every lane of every frame): span * c / columns = whole * c + part * c / columns.
  TimestampNs span = to_ns - from_ns;
  TimestampNs whole = span / columns;
  TimestampNs part = span % columns;
  TimestampNs at = from_ns;
  TimestampNs remainder = 0;  // part * c modulo columns
  for (int c = 0; c <= columns; ++c) {
    boundaries[c] = at;
    at += whole;
    remainder += part;
    if (remainder >= columns) {
      remainder -= columns;
      ++at;
    }
  }
  return boundaries;
}

}  // namespace

void TimelineLane::Build(std::vector<Entry> entries, std::span<const LaneItemTraits> traits) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  start_offsets_.assign(entries.size(), 0);
  durations_.assign(entries.size(), 0);
  items_.assign(entries.size(), 0);
  block_start_ns_.assign((entries.size() + kBlockSize - 1) / kBlockSize, 0);
  long_start_ns_.clear();
  long_duration_ns_.clear();
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& entry = entries[i];
    if (i % kBlockSize == 0) block_start_ns_[i / kBlockSize] = entry.start_ns;
    TimestampNs offset = entry.start_ns - block_start_ns_[i / kBlockSize];
    TimestampNs duration = std::max<TimestampNs>(entry.end_ns - entry.start_ns, 0);
    items_[i] = entry.item;
    start_offsets_[i] = static_cast<uint32_t>(std::min<TimestampNs>(offset, kEscape));
    if (offset >= kEscape) long_start_ns_[static_cast<uint32_t>(i)] = entry.start_ns;
    durations_[i] = static_cast<uint32_t>(std::min<TimestampNs>(duration, kEscape));
    if (duration >= kEscape) long_duration_ns_[static_cast<uint32_t>(i)] = duration;
  }
  entries.clear();
  entries.shrink_to_fit();
  BuildPyramid(traits);
}

void TimelineLane::BuildPyramid(std::span<const LaneItemTraits> traits) {
  levels_.clear();
  block_flags_.clear();
  if (items_.empty()) return;
  std::vector<Node>& blocks = levels_.emplace_back(block_start_ns_.size());
  block_flags_.assign(blocks.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    Node& node = blocks[b];
    KeyTally tally;
    size_t end = std::min(items_.size(), (b + 1) * kBlockSize);
    uint8_t flags = kOneKey | kNoneMarked | kNoLongDuration;
    uint16_t first_key = traits[items_[b * kBlockSize]].key;
    for (size_t i = b * kBlockSize; i < end; ++i) {
      TimestampNs duration = DurationOf(i);
      const LaneItemTraits& item = traits[items_[i]];
      if (item.key != first_key) flags &= ~kOneKey;
      if (item.marked) flags &= ~kNoneMarked;
      if (durations_[i] == kEscape) flags &= ~kNoLongDuration;
      node.max_end_ns = std::max(node.max_end_ns, StartOf(i) + duration);
      node.busy_ns += duration;
      node.max_duration_ns = std::max(node.max_duration_ns, duration);
      node.marked += item.marked ? 1 : 0;
      tally.Add(item.key, TallyWeight(duration));
    }
    std::tie(node.dominant_key, node.dominant_ns) = tally.Top();
    block_flags_[b] = flags;
  }
  while (levels_.back().size() > 1) {
    const std::vector<Node> below = levels_.back();
    std::vector<Node>& level = levels_.emplace_back((below.size() + 1) / 2);
    for (size_t j = 0; j < level.size(); ++j) {
      Node node = below[2 * j];
      if (2 * j + 1 < below.size()) {
        const Node& right = below[2 * j + 1];
        node.max_end_ns = std::max(node.max_end_ns, right.max_end_ns);
        node.busy_ns += right.busy_ns;
        node.max_duration_ns = std::max(node.max_duration_ns, right.max_duration_ns);
        node.marked += right.marked;
        if (right.dominant_key == node.dominant_key) {
          node.dominant_ns += right.dominant_ns;
        } else if (right.dominant_ns > node.dominant_ns) {
          node.dominant_key = right.dominant_key;
          node.dominant_ns = right.dominant_ns;
        }
      }
      level[j] = node;
    }
  }
}

// The rare escaped values are looked up out of line so that StartOf and DurationOf inline.
[[gnu::noinline]] TimestampNs TimelineLane::LongStart(size_t index) const {
  return long_start_ns_.at(static_cast<uint32_t>(index));
}

[[gnu::noinline]] TimestampNs TimelineLane::LongDuration(size_t index) const {
  return long_duration_ns_.at(static_cast<uint32_t>(index));
}

// Inlined: the column loop of a wide view calls these for nearly every interval of the lane.
[[gnu::always_inline]] inline TimestampNs TimelineLane::StartOf(size_t index) const {
  uint32_t offset = start_offsets_[index];
  if (offset == kEscape) [[unlikely]]
    return LongStart(index);
  return block_start_ns_[index / kBlockSize] + offset;
}

[[gnu::always_inline]] inline TimestampNs TimelineLane::DurationOf(size_t index) const {
  uint32_t duration = durations_[index];
  if (duration == kEscape) [[unlikely]]
    return LongDuration(index);
  return duration;
}

TimelineInterval TimelineLane::At(size_t index) const {
  TimestampNs start = StartOf(index);
  return {start, start + DurationOf(index), items_[index], static_cast<uint32_t>(index)};
}

size_t TimelineLane::LowerBound(TimestampNs ts_ns, size_t hint) const {
  // The first block starting at or after ts_ns; the answer is in the block before it, or is it.
  auto search_from = block_start_ns_.begin() + std::min(hint / kBlockSize, block_start_ns_.size());
  size_t block = static_cast<size_t>(std::lower_bound(search_from, block_start_ns_.end(), ts_ns) -
                                     block_start_ns_.begin());
  if (block == 0) return 0;
  auto start_of = [this](size_t index) { return StartOf(index); };
  return FirstAtOrAfter(start_of, (block - 1) * kBlockSize + 1,
                        std::min(block * kBlockSize, size()), ts_ns);
}

size_t TimelineLane::LowerBoundFrom(TimestampNs ts_ns, size_t from) const {
  size_t size = this->size();
  if (from >= size || StartOf(from) >= ts_ns) return from;
  return GallopFirstAtOrAfter([this](size_t index) { return StartOf(index); }, from, size, ts_ns);
}

size_t TimelineLane::ColumnEnd(TimestampNs ts_ns, size_t begin) const {
  size_t size = this->size();
  if (begin >= size) return begin;
  // A column after a dense one begins a block, whose first start is the block's.
  TimestampNs begin_start =
      begin % kBlockSize == 0 ? block_start_ns_[begin / kBlockSize] : StartOf(begin);
  if (begin_start >= ts_ns) return begin;
  // The first block starting at or after ts_ns, galloped over the blocks' first starts (8
  // bytes per block of intervals, not 12 per interval) from begin's block, which starts before.
  size_t lo = GallopFirstAtOrAfter([this](size_t block) { return block_start_ns_[block]; },
                                   begin / kBlockSize, block_start_ns_.size(), ts_ns);
  // The column's last interval (the one before the first starting at or after ts_ns) is in
  // block lo - 1. A column that holds a block of intervals before that block ends where the
  // block begins, found from the blocks' starts alone: no interval is read.
  size_t block_first = (lo - 1) * kBlockSize;
  if (block_first >= begin + kBlockSize) return block_first;
  size_t end = LowerBoundFrom(ts_ns, std::max(block_first, begin));
  return std::min(end, std::min(lo * kBlockSize, size));
}

void TimelineLane::FindOverlapping(size_t end_index, TimestampNs after_ns,
                                   TimestampNs min_duration_ns,
                                   std::vector<TimelineInterval>* out) const {
  if (levels_.empty() || end_index == 0) return;
  Visit(levels_.size() - 1, 0, std::min(end_index, size()), after_ns, min_duration_ns, out);
}

void TimelineLane::Visit(size_t level, size_t node, size_t end_index, TimestampNs after_ns,
                         TimestampNs min_duration_ns, std::vector<TimelineInterval>* out) const {
  size_t first_index = (node << level) * kBlockSize;
  if (node >= levels_[level].size() || first_index >= end_index) return;
  const Node& summary = levels_[level][node];
  if (summary.max_end_ns <= after_ns || summary.max_duration_ns < min_duration_ns) return;
  if (level == 0) {
    size_t end = std::min(end_index, first_index + kBlockSize);
    for (size_t i = first_index; i < end; ++i) {
      TimelineInterval interval = At(i);
      if (interval.end_ns > after_ns && interval.duration_ns() >= min_duration_ns) {
        out->push_back(interval);
      }
    }
    return;
  }
  Visit(level - 1, 2 * node, end_index, after_ns, min_duration_ns, out);
  Visit(level - 1, 2 * node + 1, end_index, after_ns, min_duration_ns, out);
}

TimelineColumn TimelineLane::Summarize(size_t begin, size_t end,
                                       std::span<const LaneItemTraits> traits) const {
  TimelineColumn column;
  KeyTally tally;
  auto add_interval = [&](size_t i) {
    AddToColumn(DurationOf(i), traits[items_[i]], column, tally);
  };
  auto add_node = [&](size_t level, size_t index) {
    const Node& node = levels_[level][index];
    column.count += static_cast<uint32_t>(kBlockSize << level);
    column.marked += node.marked;
    column.busy_ns += node.busy_ns;
    column.longest_ns = std::max(column.longest_ns, node.max_duration_ns);
    tally.Add(node.dominant_key, node.dominant_ns);
  };
  end = std::min(end, size());
  while (begin < end && begin % kBlockSize != 0) add_interval(begin++);
  while (end > begin && end % kBlockSize != 0) add_interval(--end);
  // Whole blocks: climb the pyramid, taking the largest aligned nodes (as in a segment tree).
  size_t lo = begin / kBlockSize;
  size_t hi = end / kBlockSize;
  for (size_t level = 0; lo < hi; ++level, lo >>= 1, hi >>= 1) {
    if (lo & 1) add_node(level, lo++);
    if (hi & 1) add_node(level, --hi);
  }
  column.dominant_key = tally.Top().first;
  return column;
}

void TimelineLane::SummarizeColumn(size_t begin, size_t end, std::span<const LaneItemTraits> traits,
                                   TimelineColumn& column) const {
  KeyTally tally;
  auto add_interval = [&](size_t i) {
    AddToColumn(DurationOf(i), traits[items_[i]], column, tally);
  };
  // Intervals [lo, hi) of one block, added in Summarize's order (`descending` or not). When
  // they all have the block's one key, the tally takes their summed weight in one step: the
  // same result, as the key is held or has a free slot.
  auto add_part = [&](size_t lo, size_t hi, bool descending) {
    if (lo >= hi) return;
    size_t block = lo / kBlockSize;
    uint8_t flags = block_flags_[block];
    uint16_t key = levels_[0][block].dominant_key;
    if ((flags & kOneKey) != 0 && (flags & kNoLongDuration) != 0 && tally.Keeps(key)) {
      TimestampNs busy = 0;
      TimestampNs longest = 0;
      TimestampNs zero_length = 0;
      for (size_t i = lo; i < hi; ++i) {
        TimestampNs duration = durations_[i];
        busy += duration;
        longest = std::max(longest, duration);
        zero_length += duration == 0 ? 1 : 0;
      }
      if ((flags & kNoneMarked) == 0) {
        for (size_t i = lo; i < hi; ++i) column.marked += traits[items_[i]].marked ? 1 : 0;
      }
      column.count += static_cast<uint32_t>(hi - lo);
      column.busy_ns += busy;
      column.longest_ns = std::max(column.longest_ns, longest);
      tally.Add(key, busy + zero_length);  // the sum of TallyWeight over the part
      return;
    }
    if (descending) {
      for (size_t i = hi; i-- > lo;) add_interval(i);
    } else {
      for (size_t i = lo; i < hi; ++i) add_interval(i);
    }
  };
  end = std::min(end, size());
  // As Summarize: up to the first block boundary ascending, after the last one descending.
  size_t front_end = std::min(end, (begin + kBlockSize - 1) / kBlockSize * kBlockSize);
  add_part(begin, front_end, false);
  begin = front_end;
  size_t back_begin = std::max(begin, end / kBlockSize * kBlockSize);
  add_part(back_begin, end, true);
  end = back_begin;
  size_t lo = begin / kBlockSize;
  size_t hi = end / kBlockSize;
  for (size_t level = 0; lo < hi; ++level, lo >>= 1, hi >>= 1) {
    auto add_node = [&](size_t index) {
      const Node& node = levels_[level][index];
      column.count += static_cast<uint32_t>(kBlockSize << level);
      column.marked += node.marked;
      column.busy_ns += node.busy_ns;
      column.longest_ns = std::max(column.longest_ns, node.max_duration_ns);
      tally.Add(node.dominant_key, node.dominant_ns);
    };
    if (lo & 1) add_node(lo++);
    if (hi & 1) add_node(--hi);
  }
  column.dominant_key = tally.Top().first;
}

LaneSlice TimelineLane::Query(TimestampNs from_ns, TimestampNs to_ns, int columns,
                              std::span<const LaneItemTraits> traits,
                              const std::vector<uint8_t>* item_mask) const {
  LaneSlice slice;
  if (items_.empty() || to_ns <= from_ns || columns <= 0) return slice;
  if (item_mask != nullptr) return ScanFiltered(from_ns, to_ns, columns, traits, *item_mask);
  size_t first = LowerBound(from_ns);
  size_t last = LowerBound(to_ns);
  if (last - first <= static_cast<size_t>(columns)) {
    FindOverlapping(first, from_ns, 0, &slice.intervals);
    // Sized once and written in place: a busy view takes a thousand or more per lane.
    size_t carried = slice.intervals.size();
    slice.intervals.resize(carried + (last - first));
    for (size_t i = first; i < last; ++i) slice.intervals[carried + (i - first)] = At(i);
    return slice;
  }
  slice.aggregated = true;
  std::vector<TimestampNs> boundaries = ColumnBoundaries(from_ns, to_ns, columns);
  TimestampNs widest_column = 0;
  for (int c = 0; c < columns; ++c) {
    widest_column = std::max(widest_column, boundaries[c + 1] - boundaries[c]);
  }
  FindOverlapping(last, from_ns, std::max<TimestampNs>(widest_column, 1), &slice.intervals);
  slice.columns.resize(columns);
  // column_first[c]: index of the first interval summarised in column c.
  std::vector<size_t> column_first(columns);
  size_t begin = first;
  for (int c = 0; c < columns; ++c) {
    column_first[c] = begin;
    // A dense column (a block of intervals or more before the block of its last interval)
    // ends where that block begins, so it sums whole blocks from the pyramid instead of
    // reading its intervals one by one: what moves to the next column is at most a block, no
    // more than the column keeps, at most one pixel away. Every interval is still counted once.
    size_t end = c + 1 == columns ? last : ColumnEnd(boundaries[c + 1], begin);
    if (end > begin) SummarizeColumn(begin, end, traits, slice.columns[c]);
    begin = end;
  }
  // Wide intervals are drawn on their own: take them out of the column that summed them.
  for (const TimelineInterval& wide : slice.intervals) {
    if (wide.index < first) continue;
    auto after = std::upper_bound(column_first.begin(), column_first.end(), wide.index);
    TimelineColumn& column = slice.columns[after - column_first.begin() - 1];
    column.count -= 1;
    column.busy_ns -= wide.duration_ns();
    column.marked -= traits[wide.item].marked ? 1 : 0;
    if (column.count == 0) column = TimelineColumn{};
  }
  return slice;
}

LaneSlice TimelineLane::ScanFiltered(TimestampNs from_ns, TimestampNs to_ns, int columns,
                                     std::span<const LaneItemTraits> traits,
                                     const std::vector<uint8_t>& item_mask) const {
  LaneSlice slice;
  std::vector<TimestampNs> boundaries = ColumnBoundaries(from_ns, to_ns, columns);
  std::vector<KeyTally> tallies;
  // Aggregated mode: wide intervals and those begun before the range are kept whole.
  auto place = [&](const TimelineInterval& interval) {
    size_t c = interval.start_ns < from_ns ? 0 : ColumnOf(boundaries, interval.start_ns);
    TimestampNs width = std::max<TimestampNs>(boundaries[c + 1] - boundaries[c], 1);
    if (interval.start_ns < from_ns || interval.duration_ns() >= width) {
      slice.intervals.push_back(interval);
      return;
    }
    TimelineColumn& column = slice.columns[c];
    const LaneItemTraits& item = traits[interval.item];
    ++column.count;
    column.marked += item.marked ? 1 : 0;
    column.busy_ns += interval.duration_ns();
    column.longest_ns = std::max(column.longest_ns, interval.duration_ns());
    tallies[c].Add(item.key, TallyWeight(interval.duration_ns()));
  };
  auto add = [&](const TimelineInterval& interval) {
    if (interval.item >= item_mask.size() || item_mask[interval.item] == 0) return;
    if (slice.aggregated) return place(interval);
    slice.intervals.push_back(interval);
    if (slice.intervals.size() <= static_cast<size_t>(columns)) return;
    // Too many to draw one by one: switch to columns.
    slice.aggregated = true;
    slice.columns.resize(columns);
    tallies.resize(columns);
    std::vector<TimelineInterval> pending;
    pending.swap(slice.intervals);
    for (const TimelineInterval& p : pending) place(p);
  };
  size_t first = LowerBound(from_ns);
  std::vector<TimelineInterval> carried;
  FindOverlapping(first, from_ns, 0, &carried);
  for (const TimelineInterval& interval : carried) add(interval);
  size_t last = LowerBound(to_ns);
  for (size_t i = first; i < last; ++i) add(At(i));
  for (size_t c = 0; c < tallies.size(); ++c)
    slice.columns[c].dominant_key = tallies[c].Top().first;
  return slice;
}

size_t TimelineLane::BytesUsed() const {
  size_t bytes =
      (start_offsets_.capacity() + durations_.capacity() + items_.capacity()) * sizeof(uint32_t) +
      block_start_ns_.capacity() * sizeof(TimestampNs) +
      (long_start_ns_.size() + long_duration_ns_.size()) * 2 * sizeof(TimestampNs) +
      block_flags_.capacity();
  for (const std::vector<Node>& level : levels_) bytes += level.capacity() * sizeof(Node);
  return bytes;
}

}  // namespace napiscope
