// Builds a Timeline while a trace loads: a ContextListener for the intervals the ContextTracker
// reconstructs and a FactListener for the softirq waits and thread activations the fact
// producers derive (producers.h), so the timeline shows the same pairs as the report.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/contexts.h"
#include "napiscope/facts.h"
#include "napiscope/producers.h"
#include "napiscope/timeline.h"
#include "napiscope/timeline_lane_entries.h"

namespace napiscope {

/// Where a TimelineBuilder's facts (softirq waits, thread activations) come from.
enum class TimelineFacts {
  kOwnProducers,  ///< producers of its own, fed by its OnEvent (softirq sites unknown)
  kFromCaller,    ///< none of its own: the caller adds it as a listener of its producers
};

/// Collects lanes, waits, gaps and activations. Wire it as both a sink and a listener:
///   tracker.AddListener(&builder); fanout.Add(&tracker); fanout.Add(&builder);
/// then call Finish() after the load returned (the tracker closes its last frames in OnEnd).
/// Beside the analyses, AnalysisSession (SessionOutputs::timeline) builds it with
/// TimelineFacts::kFromCaller and subscribes it to the pipeline's tracker and producers, so
/// that one tracker and one set of producers serve the whole load.
class TimelineBuilder : public EventSink, public ContextListener, public FactListener {
 public:
  /// A builder whose facts come from `facts`.
  explicit TimelineBuilder(TimelineFacts facts = TimelineFacts::kOwnProducers);
  ~TimelineBuilder() override;

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;

  void OnInterval(const ContextInterval& interval) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

  void OnSoftirqWait(const SoftirqWaitFact& wait) override;
  void OnThreadActivation(const ThreadActivationFact& activation) override;

  /// Sorts and packs what was collected into a Timeline; the builder is empty afterwards.
  Timeline Finish();

 private:
  struct CpuState {
    std::array<TimelineLaneEntries, kLaneCount> lanes;
    std::vector<TimelineGap> gaps;
    TimestampNs last_ts_ns;  // last event on this CPU, -1 none
  };

  CpuState& Cpu(uint16_t cpu);
  uint32_t Intern(const TimelineItem& item);
  uint16_t HandlerKey(const IrqHandlerKey& handler);
  uint16_t DeviceKey(StringId dev);
  void AddInterval(uint16_t cpu, Lane lane, TimestampNs start_ns, TimestampNs end_ns,
                   const TimelineItem& item);
  void ResetOwnFacts();

  const TraceContext* trace_ = nullptr;
  std::vector<CpuState> cpus_;
  absl::flat_hash_map<TimelineItem, uint32_t> item_ids_;
  absl::flat_hash_map<IrqHandlerKey, uint16_t> handler_keys_;
  absl::flat_hash_map<StringId, uint16_t> device_keys_;
  std::vector<MissedEventsMark> missed_;  // markers seen, to tell ring-buffer gaps apart
  std::unique_ptr<FactProducers> own_facts_;  // null when subscribed to shared producers
  std::vector<Activation> activations_;
  Timeline timeline_;
  bool saw_event_ = false;
};

}  // namespace napiscope
