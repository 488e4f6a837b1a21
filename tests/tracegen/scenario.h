// A compact description of what happened on which CPU, turned into the exact Event stream a
// loader must produce and into the trace.dat / ftrace text that encode it.
//
//   Scenario s(2);
//   s.Task(354, "irq/354-4848400", 49);
//   s.IrqEntry(0, 1'000, 354, "4848400.ethernet");
//   s.Waking(0, 1'200, 354, 1);
//   s.IrqExit(0, 1'500, 354);
//   s.Switch(1, 9'000, 0, "R", 354);
//
// The builder tracks the current task of each CPU (common_pid) and its hard-IRQ / softirq
// context (common_flags) so events need only their own fields; EventRef overrides either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "tracegen/tracedat_writer.h"

namespace napiscope::tracegen {

class Scenario;

/// The event just added; lets a scenario state what the builder would otherwise derive.
class EventRef {
 public:
  EventRef(Scenario* scenario, size_t index) : scenario_(scenario), index_(index) {}
  /// Sets common_pid instead of the CPU's current task.
  EventRef& Pid(int32_t pid);
  /// Sets common_flags (CommonFlag bits) instead of the tracked context.
  EventRef& Flags(uint8_t flags);

 private:
  Scenario* scenario_;
  size_t index_;
};

/// Kernel priority of SCHED_FIFO/RR priority `rt_priority` (chrt -f 50 -> 49).
constexpr int KernelPrioOfRt(int rt_priority) { return 99 - rt_priority; }

/// A scenario: CPUs, tasks, and events with timestamps in nanoseconds.
class Scenario {
 public:
  explicit Scenario(int cpus);

  int cpus() const { return cpus_; }
  /// The uname stored in the trace.dat ("Linux host 6.18.0-rt1 #1 SMP PREEMPT_RT x86_64").
  void SetUname(std::string uname) { uname_ = std::move(uname); }
  const std::string& uname() const { return uname_; }
  /// Adds an option to the trace.dat header (a TIME_SHIFT: EncodeTimeShiftOption).
  void AddOption(uint16_t id, std::string payload) {
    options_.push_back({id, std::move(payload)});
  }

  /// Registers a task: its comm and kernel priority (120 = nice 0; see KernelPrioOfRt).
  Scenario& Task(int32_t pid, std::string_view comm, int prio = 120);
  /// The task running on `cpu` when the trace starts (the idle task otherwise).
  Scenario& Running(int cpu, int32_t pid);

  /// sched_switch from `prev` (leaving in `prev_state`: "R", "R+", "S", "D", ...) to `next`.
  EventRef Switch(int cpu, TimestampNs ts, int32_t prev, std::string_view prev_state, int32_t next);
  EventRef Waking(int cpu, TimestampNs ts, int32_t pid, int target_cpu);
  EventRef Wakeup(int cpu, TimestampNs ts, int32_t pid, int target_cpu);
  EventRef WakeupNew(int cpu, TimestampNs ts, int32_t pid, int target_cpu);
  EventRef Migrate(int cpu, TimestampNs ts, int32_t pid, int orig_cpu, int dest_cpu);
  /// sched_pi_setprio: `pid` gets kernel priority `new_prio` (boost, or back when restored).
  EventRef PiSetprio(int cpu, TimestampNs ts, int32_t pid, int new_prio);
  EventRef Fork(int cpu, TimestampNs ts, int32_t parent, int32_t child);
  EventRef Exit(int cpu, TimestampNs ts, int32_t pid);
  EventRef IrqEntry(int cpu, TimestampNs ts, int irq, std::string_view handler);
  EventRef IrqExit(int cpu, TimestampNs ts, int irq, int ret = 1);
  EventRef SoftirqRaise(int cpu, TimestampNs ts, int vec);
  EventRef SoftirqEntry(int cpu, TimestampNs ts, int vec);
  EventRef SoftirqExit(int cpu, TimestampNs ts, int vec);
  EventRef NapiPoll(int cpu, TimestampNs ts, uint64_t napi, std::string_view dev, int work,
                    int budget);
  EventRef NetifReceiveSkb(int cpu, TimestampNs ts, std::string_view dev, uint32_t len);
  EventRef NetifRx(int cpu, TimestampNs ts, std::string_view dev, uint32_t len);
  EventRef NetDevXmit(int cpu, TimestampNs ts, std::string_view dev, uint32_t len, int rc = 0);
  /// An x86 irq_vectors event ("local_timer_entry", "reschedule_exit") with its vector.
  EventRef Vector(int cpu, TimestampNs ts, std::string_view name, int vector);
  /// Any other event of testdata/formats by name; only its name and common fields are set.
  EventRef Other(int cpu, TimestampNs ts, std::string_view name);
  /// The ring buffer of `cpu` lost `count` events (-1: unknown) before its next event at or
  /// after `ts`.
  void Missed(int cpu, TimestampNs ts, int64_t count = -1);

  /// The events a loader must deliver: merged by (timestamp, CPU, order added), with comms,
  /// priorities, common_pid and common_flags filled in and kMissedEvents marks placed.
  /// Fails when the scenario contradicts itself (switching out a task that is not running).
  absl::Status Resolve(std::vector<Event>* events) const;

  /// Strings the events refer to.
  const StringTable& strings() const { return strings_; }
  /// The registered comm of `pid` ("" if unknown; "swapper" style for the idle task).
  std::string_view CommOf(int32_t pid) const;
  /// The saved cmdlines the trace.dat carries.
  std::vector<std::pair<int32_t, std::string>> Cmdlines() const;

  /// Writes the scenario as a trace.dat v6 file.
  absl::Status WriteTraceDat(const std::string& path, TraceDatWriterStats* stats = nullptr) const;
  /// Writes the scenario's events into the buffer an open writer is at (the top buffer, or the
  /// instance it has just begun); the writer has at least the scenario's CPUs.
  absl::Status WriteEvents(TraceDatWriter* writer) const;

 private:
  friend class EventRef;
  struct TaskEntry {
    StringId comm = 0;
    int16_t prio = 120;
  };
  struct Pending {
    Event event;
    int64_t seq = 0;
    bool pid_set = false;
    bool flags_set = false;
  };
  EventRef Add(int cpu, TimestampNs ts, EventKind kind);
  Event& Last() { return events_.back().event; }

  void Fail(std::string message);

  int cpus_;
  std::string uname_;
  std::vector<TraceDatOption> options_;
  absl::Status error_;  // the first bad input; Resolve returns it
  StringTable strings_;
  absl::flat_hash_map<int32_t, TaskEntry> tasks_;
  std::vector<int32_t> task_order_;
  std::vector<int32_t> running_;
  std::vector<Pending> events_;
};

/// Writes a trace.dat v6 file of `cpus` CPUs with buffer instances, as trace-cmd record -B lays
/// them out: the top buffer holds `top`'s events (none when null), then each instance (a name
/// and the scenario of its events, none when null) follows in order. The saved cmdlines name
/// every scenario's tasks.
absl::Status WriteTraceDatBuffers(
    const std::string& path, int cpus, const Scenario* top,
    const std::vector<std::pair<std::string, const Scenario*>>& instances);

}  // namespace napiscope::tracegen
