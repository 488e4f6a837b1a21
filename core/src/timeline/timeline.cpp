#include "napiscope/timeline.h"

#include <algorithm>

#include <fmt/format.h>

namespace napiscope {

std::string_view LaneName(Lane lane) {
  switch (lane) {
    case Lane::kTask:
      return "task";
    case Lane::kHardirq:
      return "hardirq";
    case Lane::kSoftirq:
      return "softirq";
    case Lane::kSoftirqWait:
      return "softirq_wait";
    case Lane::kNapiPoll:
      return "napi_poll";
  }
  return "";
}

std::string_view ActivationKindName(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kIrqThread:
      return "irq_thread";
    case ActivationKind::kNapiKthread:
      return "napi_kthread";
    case ActivationKind::kKsoftirqd:
      return "ksoftirqd";
  }
  return "";
}

LaneSlice Timeline::Query(int cpu, Lane lane_id, TimestampNs from_ns, TimestampNs to_ns,
                          int columns, const ItemMask* mask) const {
  if (cpu < 0 || cpu >= cpus()) return {};
  bool filtered =
      mask != nullptr && !mask->empty() && mask->lane_filtered[static_cast<int>(lane_id)];
  return lane(cpu, lane_id)
      .Query(from_ns, to_ns, columns, traits_, filtered ? &mask->shown : nullptr);
}

TimelineColumn Timeline::Summarize(int cpu, Lane lane_id, TimestampNs from_ns,
                                   TimestampNs to_ns) const {
  if (cpu < 0 || cpu >= cpus()) return {};
  const TimelineLane& intervals = lane(cpu, lane_id);
  return intervals.Summarize(intervals.LowerBound(from_ns), intervals.LowerBound(to_ns), traits_);
}

std::vector<TimelineInterval> Timeline::Overlapping(int cpu, Lane lane_id, TimestampNs from_ns,
                                                    TimestampNs to_ns) const {
  std::vector<TimelineInterval> found;
  if (cpu < 0 || cpu >= cpus()) return found;
  const TimelineLane& intervals = lane(cpu, lane_id);
  size_t first = intervals.LowerBound(from_ns);
  intervals.FindOverlapping(first, from_ns, 0, &found);
  size_t last = intervals.LowerBound(to_ns + 1);
  for (size_t i = first; i < last; ++i) found.push_back(intervals.At(i));
  return found;
}

namespace {

// Per item: whether the set of its lane's dimension holds it; `empty_holds_all` decides what an
// empty set means.
std::vector<uint8_t> ItemsHeld(const std::vector<TimelineItem>& items, const TimelineFilter& filter,
                               bool empty_holds_all) {
  auto has = [empty_holds_all](const auto& set, auto value) {
    if (set.empty()) return empty_holds_all;
    return std::find(set.begin(), set.end(), value) != set.end();
  };
  std::vector<uint8_t> mask(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    const TimelineItem& item = items[i];
    switch (item.lane) {
      case Lane::kTask:
      case Lane::kNapiPoll:
        mask[i] = has(filter.pids, item.pid);
        break;
      case Lane::kHardirq: {
        // Device IRQs and x86 vectors are two number spaces; either list filters the lane.
        const std::vector<int32_t>& numbers =
            item.irq.x86_vector ? filter.x86_vectors : filter.irqs;
        bool unfiltered = filter.irqs.empty() && filter.x86_vectors.empty();
        mask[i] = unfiltered
                      ? empty_holds_all
                      : std::find(numbers.begin(), numbers.end(), item.irq.number) != numbers.end();
        break;
      }
      case Lane::kSoftirq:
      case Lane::kSoftirqWait:
        mask[i] = has(filter.vecs, item.vec);
        break;
    }
  }
  return mask;
}

}  // namespace

ItemMask Timeline::MatchingItems(const TimelineFilter& filter) const {
  ItemMask mask;
  mask.shown = ItemsHeld(items_, filter, true);
  for (size_t i = 0; i < items_.size(); ++i) {
    if (mask.shown[i] == 0) mask.lane_filtered[static_cast<int>(items_[i].lane)] = true;
  }
  return mask;
}

std::vector<uint8_t> Timeline::NamedItems(const TimelineFilter& filter) const {
  return ItemsHeld(items_, filter, false);
}

std::vector<Activation> Timeline::CrossCpuArrows(TimestampNs from_ns, TimestampNs to_ns,
                                                 int columns) const {
  std::vector<Activation> arrows;
  if (to_ns <= from_ns || columns <= 0) return arrows;
  auto by_from = [](const Activation& a, TimestampNs ts) { return a.from_ns < ts; };
  auto begin = std::lower_bound(cross_cpu_.begin(), cross_cpu_.end(),
                                from_ns - max_cross_latency_ns_, by_from);
  auto end = std::lower_bound(begin, cross_cpu_.end(), to_ns, by_from);
  // One arrow per (column, from_cpu, to_cpu): the column of the arrow's visible start.
  double column_ns = static_cast<double>(to_ns - from_ns) / columns;
  int64_t last_column = -1;
  std::vector<std::pair<uint16_t, uint16_t>> pairs_in_column;
  for (auto it = begin; it != end; ++it) {
    if (it->to_ns < from_ns) continue;
    int64_t column = static_cast<int64_t>(
        static_cast<double>(std::max(it->from_ns, from_ns) - from_ns) / column_ns);
    if (column != last_column) {
      last_column = column;
      pairs_in_column.clear();
    }
    std::pair<uint16_t, uint16_t> pair{it->from_cpu, it->to_cpu};
    if (std::find(pairs_in_column.begin(), pairs_in_column.end(), pair) != pairs_in_column.end()) {
      continue;
    }
    pairs_in_column.push_back(pair);
    arrows.push_back(*it);
  }
  return arrows;
}

std::string Timeline::HardirqTitle(uint16_t key) const {
  if (key >= handlers_.size()) return "hard IRQ";
  return InterruptLabel(handlers_[key].irq, "hard IRQ");
}

std::string Timeline::KeyLabel(Lane lane_id, uint16_t key, const StringTable& strings) const {
  switch (lane_id) {
    case Lane::kTask:
      return std::string(TaskClassName(static_cast<TaskClass>(key)));
    case Lane::kHardirq:
      if (key >= handlers_.size()) return "?";
      // A vector's number is not a device IRQ's: the label says which (as the report does).
      return fmt::format("{} {}", InterruptLabel(handlers_[key].irq, ""),
                         strings.Get(handlers_[key].name));
    case Lane::kSoftirq:
    case Lane::kSoftirqWait:
      return std::string(SoftirqVectorName(key));
    case Lane::kNapiPoll:
      return key < napi_devices_.size() ? std::string(strings.Get(napi_devices_[key])) : "?";
  }
  return "?";
}

size_t Timeline::BytesUsed() const {
  size_t bytes =
      items_.capacity() * sizeof(TimelineItem) + traits_.capacity() * sizeof(LaneItemTraits) +
      handlers_.capacity() * sizeof(IrqHandlerKey) + napi_devices_.capacity() * sizeof(StringId) +
      (activations_.capacity() + cross_cpu_.capacity()) * sizeof(Activation);
  for (const CpuLanes& cpu : cpus_) {
    for (const TimelineLane& lane : cpu.lanes) bytes += lane.BytesUsed();
    bytes += cpu.gaps.capacity() * sizeof(TimelineGap);
  }
  return bytes;
}

}  // namespace napiscope
