// Hand-made event sequences for unit tests: build Events with readable calls, then play them
// into any EventSink exactly as a loader would (OnBegin, events in order, OnEnd).
#pragma once

#include <string>
#include <vector>

#include "napiscope/event_sink.h"

namespace napiscope::testing {

/// Builds a tiny trace in memory. Timestamps are in ns; events must be added in time order.
class EventBuilder {
 public:
  explicit EventBuilder(int cpus);

  /// Names `pid` `comm` with kernel priority `prio` (for the task table).
  EventBuilder& Task(int32_t pid, const std::string& comm, int16_t prio = 120);

  EventBuilder& Switch(int cpu, TimestampNs ts, int32_t prev, uint16_t prev_state, int32_t next);
  EventBuilder& Waking(int cpu, TimestampNs ts, int32_t current, int32_t pid, int target_cpu);
  EventBuilder& Wakeup(int cpu, TimestampNs ts, int32_t current, int32_t pid, int target_cpu);
  EventBuilder& Migrate(int cpu, TimestampNs ts, int32_t current, int32_t pid, int from, int to);
  EventBuilder& PiSetprio(int cpu, TimestampNs ts, int32_t current, int32_t pid, int16_t old_prio,
                          int16_t new_prio);
  EventBuilder& IrqEntry(int cpu, TimestampNs ts, int32_t current, int32_t irq,
                         const std::string& handler);
  /// `ret` is the handler's return: 1 handled, 2 (kIrqWakeThread) wake the IRQ's thread.
  EventBuilder& IrqExit(int cpu, TimestampNs ts, int32_t current, int32_t irq, int32_t ret = 1);
  EventBuilder& VectorEntry(int cpu, TimestampNs ts, int32_t current, const std::string& name,
                            int32_t vector);
  EventBuilder& VectorExit(int cpu, TimestampNs ts, int32_t current, const std::string& name,
                           int32_t vector);
  EventBuilder& Raise(int cpu, TimestampNs ts, int32_t current, uint32_t vec);
  EventBuilder& SoftirqEntry(int cpu, TimestampNs ts, int32_t current, uint32_t vec);
  EventBuilder& SoftirqExit(int cpu, TimestampNs ts, int32_t current, uint32_t vec);
  EventBuilder& NapiPoll(int cpu, TimestampNs ts, int32_t current, uint64_t napi,
                         const std::string& dev, int32_t work, int32_t budget);
  EventBuilder& NetifReceiveSkb(int cpu, TimestampNs ts, int32_t current, const std::string& dev,
                                uint32_t len);
  EventBuilder& Missed(int cpu, TimestampNs ts, int64_t count);
  /// Any other event, only counted.
  EventBuilder& Other(int cpu, TimestampNs ts, int32_t current, const std::string& name);

  /// Sets common_flags of the last event added.
  EventBuilder& Flags(uint8_t flags);

  /// Plays the events into `sink`; the builder's context stays valid for queries afterwards.
  void Play(EventSink& sink);

  /// The context the events refer to (strings, tasks, meta).
  TraceContext& context() { return context_; }
  const std::vector<Event>& events() const { return events_; }

 private:
  Event& Add(EventKind kind, int cpu, TimestampNs ts, int32_t current);
  StringId Intern(const std::string& text) { return context_.strings.Intern(text); }

  TraceContext context_;
  std::vector<Event> events_;
};

}  // namespace napiscope::testing
