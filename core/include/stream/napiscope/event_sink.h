// The one interface events flow through: loaders push, analyses and stores consume.
#pragma once

#include <vector>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "napiscope/task_table.h"
#include "napiscope/trace_meta.h"

namespace napiscope {

/// Everything a consumer may need to interpret events: file facts, strings, tasks.
struct TraceContext {
  TraceMeta meta;
  StringTable strings;
  TaskTable tasks;
  std::vector<MissedEventsMark> missed;  ///< every gap, in stream order
};

/// Receives the events of one trace in global timestamp order.
class EventSink {
 public:
  virtual ~EventSink() = default;
  /// Called once before the first event; `context` stays valid until OnEnd returns.
  virtual void OnBegin(const TraceContext& context) { (void)context; }
  /// Called for every event, merged across CPUs by timestamp; time never goes backwards
  /// (loaders give a corrupt earlier record the time of the one before, and warn).
  virtual void OnEvent(const Event& event) = 0;
  /// Called once after the last event.
  virtual void OnEnd() {}
};

/// Forwards every call to several sinks, in the order they were added.
class FanoutSink : public EventSink {
 public:
  /// Adds a sink; it must outlive this object.
  void Add(EventSink* sink) { sinks_.push_back(sink); }
  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;

 private:
  std::vector<EventSink*> sinks_;
};

}  // namespace napiscope
