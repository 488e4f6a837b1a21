// The producers of derived facts (facts.h): one object that pairs softirq raises with entries,
// service-thread wakeups with switch-ins, task wakeups with runs, and follows the task on each
// CPU, once per trace, for every consumer. Definitions: docs/definitions.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "napiscope/contexts.h"
#include "napiscope/event_sink.h"
#include "napiscope/facts.h"

namespace napiscope {

namespace internal {
struct FactProducerParts;
}

/// Derives facts as events stream in and hands them to listeners in stream order. Wire it
/// after the context tracker so the tracker's frames at an event are those after it:
///   tracker.AddListener(&producers);   // before any listener that reads service threads
///   fanout.Add(&tracker); fanout.Add(&producers); fanout.Add(&analyses...);
/// The tracker is optional; without one, softirq sites are kUnknown.
class FactProducers : public EventSink, public ContextListener {
 public:
  /// `tracker`, when given, must be fed each event before this object and outlive it.
  explicit FactProducers(const ContextTracker* tracker = nullptr);
  ~FactProducers() override;

  /// Adds a listener; it must outlive this object. Listeners are called in the order added.
  void AddListener(FactListener* listener);

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;
  /// Reads task intervals only.
  ContextReads Reads() const override { return {false, ContextKindBit(ContextKind::kTask)}; }
  /// Task intervals of the tracker: service threads seen only there are tracked too.
  void OnInterval(const ContextInterval& interval) override;

  /// Softirq vectors pending on `cpu` after the last event (bit = 1 << vec).
  uint32_t PendingSoftirqs(uint16_t cpu) const;
  /// When `vec` was first raised on `cpu` since it last entered; valid while it is pending.
  TimestampNs FirstRaiseNs(uint16_t cpu, uint32_t vec) const;
  /// The task current on `cpu` after the last event, -1 unknown (start, after lost events).
  int32_t CurrentPid(uint16_t cpu) const;
  /// True when `pid` is the current task of some CPU.
  bool IsRunning(int32_t pid) const;
  /// The service thread `pid`, or nullptr when it is none (or not seen yet).
  const ServiceThread* FindServiceThread(int32_t pid) const;
  /// Every service thread seen so far, in no particular order.
  std::vector<ServiceThread> ServiceThreads() const;

 private:
  std::unique_ptr<internal::FactProducerParts> parts_;
};

}  // namespace napiscope
