// The timeline model the GUI draws: per CPU, lanes of intervals (running task, hard IRQs,
// softirqs with their raise-to-entry waits, NAPI polls), missed-event gaps, and cross-CPU
// activations of IRQ threads, NAPI kthreads and ksoftirqd. Built by TimelineBuilder.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/contexts.h"
#include "napiscope/timeline_lane.h"

namespace napiscope {

/// The lanes of one CPU.
enum class Lane : uint8_t {
  kTask,         ///< the running task, keyed by TaskClass; idle is left empty
  kHardirq,      ///< hard IRQ handlers and x86 vectors, keyed by handler (Timeline::handlers())
  kSoftirq,      ///< softirq runs, keyed by vector
  kSoftirqWait,  ///< raise-to-entry waits, keyed by vector
  kNapiPoll,     ///< napi->poll() calls, keyed by device (Timeline::napi_devices()); exhausted
                 ///< polls (work >= budget) are marked
};

/// Number of lanes per CPU.
inline constexpr int kLaneCount = 5;

/// Stable name of a lane ("task", "hardirq", "softirq", "softirq_wait", "napi_poll").
std::string_view LaneName(Lane lane);

/// Bits of TimelineItem::flags.
enum TimelineItemFlag : uint8_t {
  kItemStartUnknown = 0x01,  ///< began before the trace or a gap
  kItemEndUnknown = 0x02,    ///< closed by a gap or the end of the trace
  kItemSuspended = 0x04,     ///< a softirq cut short because its task was switched out (RT)
  kItemResumed = 0x08,       ///< a softirq continuing after its task came back (RT)
  kItemExhausted = 0x10,     ///< a NAPI poll with work >= budget: polled again
};

/// What an interval is, interned: intervals with the same details share one item.
struct TimelineItem {
  Lane lane = Lane::kTask;
  uint8_t flags = 0;                         ///< TimelineItemFlag bits
  TaskClass task_class = TaskClass::kOther;  ///< class of the task on the CPU
  SoftirqSite site = SoftirqSite::kNone;     ///< where a softirq or NAPI poll ran
  uint16_t key = 0;    ///< colour key; its meaning depends on the lane (see Lane)
  int16_t prio = -1;   ///< kernel priority of the task on the CPU, -1 unknown
  int32_t pid = 0;     ///< the task on the CPU; 0 for hard IRQs (not kept, to keep items few)
  InterruptId irq;     ///< hard IRQ: the device IRQ or x86 vector
  uint32_t vec = 0;    ///< softirq vector
  StringId name = 0;   ///< task comm, IRQ handler name or NAPI device
  int32_t work = 0;    ///< NAPI poll: packets processed
  int32_t budget = 0;  ///< NAPI poll: budget

  bool operator==(const TimelineItem&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const TimelineItem& i) {
    return H::combine(std::move(h), i.lane, i.flags, i.task_class, i.site, i.key, i.prio, i.pid,
                      i.irq, i.vec, i.name, i.work, i.budget);
  }
};

/// A hard IRQ handler (or x86 vector) as the hard-IRQ lane keys it.
struct IrqHandlerKey {
  InterruptId irq;    ///< the device IRQ or x86 vector
  StringId name = 0;  ///< handler or vector name
  bool operator==(const IrqHandlerKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const IrqHandlerKey& key) {
    return H::combine(std::move(h), key.irq, key.name);
  }
};

/// Which kind of thread an activation woke.
enum class ActivationKind : uint8_t {
  kIrqThread,    ///< hard IRQ N, then the next switch-in of irq/N-*
  kNapiKthread,  ///< sched_waking of napi/*, then its next switch-in
  kKsoftirqd,    ///< sched_waking of ksoftirqd/N, then its next switch-in
};

/// Stable name of an activation kind ("irq_thread", "napi_kthread", "ksoftirqd").
std::string_view ActivationKindName(ActivationKind kind);

/// A thread activated from one CPU and run on another (or the same) CPU. Paired with the rules
/// of the report's thread activity rows: the first wakeup (hard IRQ N for irq/N-*, sched_waking
/// for the others) while the thread is not running, then its next switch-in; dropped when the
/// ring buffer lost events on either CPU in between.
struct Activation {
  TimestampNs from_ns = 0;  ///< the hard IRQ entry or the sched_waking
  TimestampNs to_ns = 0;    ///< the thread's switch-in
  int32_t pid = 0;          ///< the thread
  int32_t irq = -1;         ///< the hard IRQ (IRQ threads), else -1
  StringId comm = 0;        ///< the thread's comm at switch-in
  uint16_t from_cpu = 0;
  uint16_t to_cpu = 0;
  ActivationKind kind = ActivationKind::kIrqThread;
  bool exact = true;  ///< false when the switch-in was not recorded: to_ns is the thread's first
                      ///< event after it (counted, as the report does, but drawn as no arrow)

  /// True when the thread ran on another CPU than the one that activated it.
  bool cross_cpu() const { return from_cpu != to_cpu; }
};

/// Time on a CPU about which nothing is known: the ring buffer dropped events, or the
/// ContextTracker found a sched_switch missing without a missed-events marker.
struct TimelineGap {
  TimestampNs start_ns = 0;
  TimestampNs end_ns = 0;
  int64_t lost_events = 0;  ///< events the ring buffer dropped (-1: it did not say how many);
                            ///< 0 when no missed-events marker ends the gap
};

/// What to show: empty sets show everything. Pids select the task and NAPI lanes (a poll
/// belongs to the task it ran in), irqs and x86 vectors the hard-IRQ lane, softirq vectors the
/// softirq and wait lanes.
struct TimelineFilter {
  std::vector<int32_t> pids;
  std::vector<int32_t> irqs;         ///< device IRQ numbers
  std::vector<uint32_t> vecs;        ///< softirq vectors
  std::vector<int32_t> x86_vectors;  ///< x86 vector numbers (a number space of their own)

  /// Adds a device IRQ to `irqs`, an x86 vector to `x86_vectors`; nothing when none is known.
  void AddInterrupt(InterruptId irq) {
    if (irq.known()) (irq.x86_vector ? x86_vectors : irqs).push_back(irq.number);
  }
  /// True when the filter hides nothing.
  bool empty() const {
    return pids.empty() && irqs.empty() && vecs.empty() && x86_vectors.empty();
  }
};

/// Which items a filter shows, and in which lanes it hides anything: lanes it leaves whole keep
/// the pyramid's O(pixels) path, filtered lanes scan the intervals in view.
struct ItemMask {
  std::vector<uint8_t> shown;                    ///< per item: 1 shown, 0 hidden
  std::array<bool, kLaneCount> lane_filtered{};  ///< true when the lane hides some item

  /// True for no filter.
  bool empty() const { return shown.empty(); }
  /// True when item `item` is shown.
  bool Shows(uint32_t item) const { return empty() || (item < shown.size() && shown[item] != 0); }
};

/// The per-CPU lanes of a loaded trace. Immutable once built; safe to query from any thread.
class Timeline {
 public:
  /// Number of CPUs.
  int cpus() const { return static_cast<int>(cpus_.size()); }

  /// First and last event timestamps of the trace.
  TimestampNs start_ns() const { return start_ns_; }
  TimestampNs end_ns() const { return end_ns_; }

  /// Events the builder saw (missed-event markers excluded).
  int64_t events() const { return events_; }

  /// All interned items; TimelineInterval::item indexes this.
  const std::vector<TimelineItem>& items() const { return items_; }

  /// One lane of one CPU (cpu < cpus()).
  const TimelineLane& lane(int cpu, Lane lane) const {
    return cpus_[cpu].lanes[static_cast<int>(lane)];
  }

  /// What a view of [from_ns, to_ns) at `columns` pixel columns draws for one lane;
  /// `mask` comes from MatchingItems (null or empty: no filter).
  LaneSlice Query(int cpu, Lane lane, TimestampNs from_ns, TimestampNs to_ns, int columns,
                  const ItemMask* mask = nullptr) const;

  /// Summary of the intervals of a lane starting in [from_ns, to_ns) (for tooltips of dense
  /// spots); O(log of the lane's size).
  TimelineColumn Summarize(int cpu, Lane lane, TimestampNs from_ns, TimestampNs to_ns) const;

  /// Intervals of a lane overlapping [from_ns, to_ns], in lane order (for hit tests).
  std::vector<TimelineInterval> Overlapping(int cpu, Lane lane, TimestampNs from_ns,
                                            TimestampNs to_ns) const;

  /// What `filter` shows.
  ItemMask MatchingItems(const TimelineFilter& filter) const;

  /// Per item: 1 when `filter` names it (its pid, IRQ or vector is listed), else 0; unlike
  /// MatchingItems an empty set names nothing. For highlighting what a finding names.
  std::vector<uint8_t> NamedItems(const TimelineFilter& filter) const;

  /// Missed-event gaps of `cpu`, in time order.
  const std::vector<TimelineGap>& gaps(int cpu) const { return cpus_[cpu].gaps; }

  /// Every activation, sorted by from_ns.
  const std::vector<Activation>& activations() const { return activations_; }

  /// Exact cross-CPU activations whose arrow crosses [from_ns, to_ns), at most one per pixel column
  /// of its start and per (from_cpu, to_cpu) pair, so drawing stays bounded by pixels.
  std::vector<Activation> CrossCpuArrows(TimestampNs from_ns, TimestampNs to_ns, int columns) const;

  /// Hard-IRQ lane keys: handler of each key.
  const std::vector<IrqHandlerKey>& handlers() const { return handlers_; }

  /// NAPI lane keys: device of each key.
  const std::vector<StringId>& napi_devices() const { return napi_devices_; }

  /// Readable name of a colour key of `lane` ("NET_RX", "irq_thread", "eth0", "30 eth0",
  /// "x86 vector 236 local_timer").
  std::string KeyLabel(Lane lane, uint16_t key, const StringTable& strings) const;
  /// What a hard-IRQ item of handler `key` is, for a tooltip: "hard IRQ 354" or "x86 vector 236".
  std::string HardirqTitle(uint16_t key) const;

  /// Bytes held by the lanes, items, gaps and activations.
  size_t BytesUsed() const;

 private:
  friend class TimelineBuilder;
  struct CpuLanes {
    std::array<TimelineLane, kLaneCount> lanes;
    std::vector<TimelineGap> gaps;
  };

  std::vector<CpuLanes> cpus_;
  std::vector<TimelineItem> items_;
  std::vector<LaneItemTraits> traits_;  // per item, for the lanes' aggregation
  std::vector<IrqHandlerKey> handlers_;
  std::vector<StringId> napi_devices_;
  std::vector<Activation> activations_;
  std::vector<Activation> cross_cpu_;  // the cross-CPU subset, sorted by from_ns
  TimestampNs max_cross_latency_ns_ = 0;
  TimestampNs start_ns_ = 0;
  TimestampNs end_ns_ = 0;
  int64_t events_ = 0;
};

}  // namespace napiscope
