// Builds a Timeline while a trace loads: an EventSink for the events the context model does not
// carry (softirq raises, wakeups, hard IRQ entries, switch-ins) and a ContextListener for the
// intervals the ContextTracker reconstructs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/contexts.h"
#include "napiscope/timeline.h"

namespace napiscope {

namespace internal {
class ActivationPairer;
}

/// Collects lanes, waits, gaps and activations. Wire it as both a sink and a listener:
///   tracker.AddListener(&builder); fanout.Add(&tracker); fanout.Add(&builder);
/// then call Finish() after the load returned (the tracker closes its last frames in OnEnd).
class TimelineBuilder : public EventSink, public ContextListener {
 public:
  TimelineBuilder();
  ~TimelineBuilder() override;

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;

  void OnInterval(const ContextInterval& interval) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

  /// Sorts and packs what was collected into a Timeline; the builder is empty afterwards.
  Timeline Finish();

 private:
  struct CpuState {
    std::array<std::vector<TimelineLane::Entry>, kLaneCount> lanes;
    std::vector<TimelineGap> gaps;
    std::array<TimestampNs, kSoftirqVectorCount> raised_ns;  // first raise since entry, -1 none
    TimestampNs last_ts_ns;                                  // last event on this CPU, -1 none
  };

  CpuState& Cpu(uint16_t cpu);
  uint32_t Intern(const TimelineItem& item);
  uint16_t HandlerKey(int32_t irq, StringId name);
  uint16_t DeviceKey(StringId dev);
  void AddInterval(uint16_t cpu, Lane lane, TimestampNs start_ns, TimestampNs end_ns,
                   const TimelineItem& item);
  void OnRaise(const Event& event);
  void OnSoftirqEntry(const Event& event);

  const TraceContext* trace_ = nullptr;
  std::vector<CpuState> cpus_;
  absl::flat_hash_map<TimelineItem, uint32_t> item_ids_;
  absl::flat_hash_map<int64_t, uint16_t> handler_keys_;  // (irq << 32 | name)
  absl::flat_hash_map<StringId, uint16_t> device_keys_;
  std::vector<MissedEventsMark> missed_;  // markers seen, to tell ring-buffer gaps apart
  std::unique_ptr<internal::ActivationPairer> activations_;
  Timeline timeline_;
  bool saw_event_ = false;
};

}  // namespace napiscope
