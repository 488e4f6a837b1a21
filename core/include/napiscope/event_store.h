// A compact per-CPU column store of every event, for random access (GUI, event lists, tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "napiscope/event_sink.h"

namespace napiscope {

/// Holds all events of a trace in per-CPU columns: fixed columns for what every event has and
/// one packed table per event kind for its fields, so memory is about 22 bytes per event plus
/// the size of that kind's fields (4 for softirq events, 12 for net events, 24 for sched_switch).
class EventStore : public EventSink {
 public:
  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;

  /// Number of CPU columns.
  size_t cpus() const { return cpus_.size(); }

  /// Events stored for `cpu` (missed-events markers included).
  size_t size(uint16_t cpu) const;

  /// Events stored in all CPUs.
  size_t total() const;

  /// The `index`-th event of `cpu`, rebuilt from the columns.
  Event Get(uint16_t cpu, size_t index) const;

  /// Timestamp of the `index`-th event of `cpu`.
  TimestampNs Timestamp(uint16_t cpu, size_t index) const { return cpus_[cpu].ts_ns[index]; }

  /// Index of the first event of `cpu` at or after `ts_ns` (size(cpu) when none).
  size_t LowerBound(uint16_t cpu, TimestampNs ts_ns) const;

  /// Bytes held by the columns and field tables (capacity, not just size).
  size_t BytesUsed() const;

  /// Releases spare capacity once loading is done.
  void OnEnd() override;

 private:
  struct Columns {
    std::vector<TimestampNs> ts_ns;
    std::vector<int32_t> pid;
    std::vector<EventKind> kind;
    std::vector<uint8_t> flags;
    std::vector<StringId> name;
    std::vector<uint32_t> field_index;  // row in the table of that kind
  };
  struct FieldTables {
    std::vector<SchedSwitchFields> sched_switch;
    std::vector<WakeFields> wake;
    std::vector<MigrateFields> migrate;
    std::vector<PiSetprioFields> pi;
    std::vector<ForkFields> fork;
    std::vector<ExitFields> exit;
    std::vector<IrqFields> irq;
    std::vector<SoftirqFields> softirq;
    std::vector<NapiPollFields> napi;
    std::vector<NetFields> net;
    std::vector<MissedFields> missed;
  };
  std::vector<Columns> cpus_;
  FieldTables fields_;
};

}  // namespace napiscope
