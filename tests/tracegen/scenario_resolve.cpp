// Scenario::Resolve and Scenario::WriteTraceDat: from the builder's calls to the exact events.
#include <algorithm>
#include <map>

#include <absl/strings/str_cat.h>

#include "tracegen/record_encoder.h"
#include "tracegen/scenario.h"

namespace napiscope::tracegen {
namespace {

// What the builder tracks per CPU while walking the events in time order.
struct CpuContext {
  int32_t current = 0;
  int hardirq = 0;
  int softirq = 0;
  bool missed_pending = false;
  int64_t missed_count = -1;
};

// The common_flags a kernel would record in the tracked context.
uint8_t ContextFlags(const CpuContext& cpu, EventKind kind) {
  // schedule() runs with interrupts off.
  if (kind == EventKind::kSchedSwitch) return kIrqsOff;
  uint8_t flags = 0;
  if (cpu.hardirq > 0) flags |= kHardirq | kIrqsOff;
  if (cpu.softirq > 0) flags |= kSoftirq;
  return flags;
}

}  // namespace

absl::Status Scenario::Resolve(std::vector<Event>* events) const {
  if (!error_.ok()) return error_;
  std::vector<const Pending*> order;
  order.reserve(events_.size());
  for (const Pending& pending : events_) order.push_back(&pending);
  std::sort(order.begin(), order.end(), [](const Pending* a, const Pending* b) {
    if (a->event.ts_ns != b->event.ts_ns) return a->event.ts_ns < b->event.ts_ns;
    if (a->event.cpu != b->event.cpu) return a->event.cpu < b->event.cpu;
    return a->seq < b->seq;
  });

  std::vector<CpuContext> cpus(cpus_);
  for (int cpu = 0; cpu < cpus_; ++cpu) cpus[cpu].current = running_[cpu];
  absl::flat_hash_map<int32_t, int16_t> boosted_prio;  // PI-boosted (or restored) priorities
  absl::flat_hash_map<int32_t, int> task_softirq;      // softirq depth of switched-out tasks
  absl::Status status;
  auto fail = [&](const Event& event, const std::string& what) {
    if (status.ok()) {
      status = absl::InvalidArgumentError(
          absl::StrCat("CPU ", event.cpu, " at ", event.ts_ns, " ns: ", what));
    }
  };
  auto comm_of = [&](const Event& event, int32_t pid) -> StringId {
    StringId id = 0;
    if (pid == 0) {
      strings_.Find(absl::StrCat("swapper/", event.cpu), &id);
      return id;
    }
    auto it = tasks_.find(pid);
    if (it == tasks_.end()) fail(event, absl::StrCat("pid ", pid, " is not a registered task"));
    return it == tasks_.end() ? 0 : it->second.comm;
  };
  auto prio_of = [&](int32_t pid) -> int16_t {
    auto boosted = boosted_prio.find(pid);
    if (boosted != boosted_prio.end()) return boosted->second;
    auto it = tasks_.find(pid);
    return it == tasks_.end() ? 120 : it->second.prio;
  };

  events->clear();
  events->reserve(events_.size());
  for (const Pending* pending : order) {
    Event event = pending->event;
    CpuContext& cpu = cpus[event.cpu];
    switch (event.kind) {
      case EventKind::kMissedEvents:
        cpu.missed_pending = true;
        cpu.missed_count = event.missed.count;
        continue;
      case EventKind::kSchedSwitch: {
        SchedSwitchFields& f = event.sched_switch;
        if (!pending->pid_set && cpu.current != f.prev_pid) {
          fail(event, absl::StrCat("sched_switch from pid ", f.prev_pid, " but pid ", cpu.current,
                                   " is running"));
        }
        f.prev_comm = comm_of(event, f.prev_pid);
        f.prev_prio = prio_of(f.prev_pid);
        f.next_comm = comm_of(event, f.next_pid);
        f.next_prio = prio_of(f.next_pid);
        break;
      }
      case EventKind::kSchedWaking:
      case EventKind::kSchedWakeup:
      case EventKind::kSchedWakeupNew:
        event.wake.comm = comm_of(event, event.wake.pid);
        event.wake.prio = prio_of(event.wake.pid);
        break;
      case EventKind::kSchedMigrateTask:
        event.migrate.comm = comm_of(event, event.migrate.pid);
        event.migrate.prio = prio_of(event.migrate.pid);
        break;
      case EventKind::kSchedPiSetprio:
        event.pi.comm = comm_of(event, event.pi.pid);
        event.pi.old_prio = prio_of(event.pi.pid);
        boosted_prio[event.pi.pid] = event.pi.new_prio;
        break;
      case EventKind::kSchedProcessFork:
        event.fork.child_comm = comm_of(event, event.fork.child_pid);
        break;
      case EventKind::kSchedProcessExit:
        event.exit.comm = comm_of(event, event.exit.pid);
        event.exit.prio = prio_of(event.exit.pid);
        break;
      case EventKind::kIrqHandlerEntry:
      case EventKind::kIrqVectorEntry:
        ++cpu.hardirq;
        break;
      case EventKind::kSoftirqEntry:
        ++cpu.softirq;
        break;
      default:
        break;
    }
    if (!pending->flags_set) event.flags = ContextFlags(cpu, event.kind);
    if (!pending->pid_set) event.pid = cpu.current;
    bool irq_exit =
        event.kind == EventKind::kIrqHandlerExit || event.kind == EventKind::kIrqVectorExit;
    if (irq_exit && cpu.hardirq > 0) --cpu.hardirq;
    if (event.kind == EventKind::kSoftirqExit && cpu.softirq > 0) --cpu.softirq;
    if (event.kind == EventKind::kSchedSwitch) {
      // Softirq processing in a task can be preempted (PREEMPT_RT, local_bh_enable): the
      // softirq context leaves the CPU with the task and comes back with it.
      auto key = [&](int32_t pid) { return pid == 0 ? -1 - event.cpu : pid; };
      task_softirq[key(event.sched_switch.prev_pid)] = cpu.softirq;
      auto next = task_softirq.find(key(event.sched_switch.next_pid));
      cpu.softirq = next == task_softirq.end() ? 0 : next->second;
      cpu.current = event.sched_switch.next_pid;
    }
    if (cpu.missed_pending) {
      Event missed;
      missed.ts_ns = event.ts_ns;
      missed.cpu = event.cpu;
      missed.pid = -1;
      missed.kind = EventKind::kMissedEvents;
      missed.missed = MissedFields{cpu.missed_count};
      events->push_back(missed);
      cpu.missed_pending = false;
    }
    events->push_back(event);
  }
  for (int cpu = 0; cpu < cpus_; ++cpu) {
    if (cpus[cpu].missed_pending && status.ok()) {
      status = absl::InvalidArgumentError(
          absl::StrCat("CPU ", cpu, ": missed events marked after its last event"));
    }
  }
  return status;
}

absl::Status Scenario::WriteEvents(TraceDatWriter* writer) const {
  std::vector<Event> events;
  absl::Status status = Resolve(&events);
  if (!status.ok()) return status;
  std::vector<std::vector<const Event*>> per_cpu(cpus_);
  for (const Event& event : events) per_cpu[event.cpu].push_back(&event);
  RecordEncoder encoder(FormatCatalog::Embedded(), strings_,
                        [this](int32_t pid) { return CommOf(pid); });
  std::string payload;
  for (int cpu = 0; cpu < cpus_ && status.ok(); ++cpu) {
    if (per_cpu[cpu].empty()) continue;
    status = writer->BeginCpu(cpu);
    for (const Event* event : per_cpu[cpu]) {
      if (!status.ok()) break;
      if (event->kind == EventKind::kMissedEvents) {
        writer->MarkMissed(event->missed.count);
        continue;
      }
      status = encoder.Encode(*event, &payload);
      if (status.ok()) status = writer->Append(event->ts_ns, payload);
    }
    if (status.ok()) status = writer->EndCpu();
  }
  return status;
}

absl::Status Scenario::WriteTraceDat(const std::string& path, TraceDatWriterStats* stats) const {
  TraceDatWriterOptions options;
  options.cpus = cpus_;
  options.cmdlines = Cmdlines();
  options.uname = uname_;
  options.extra_options = options_;
  TraceDatWriter writer;
  absl::Status status = writer.Open(path, options);
  if (!status.ok()) return status;
  status = WriteEvents(&writer);
  absl::Status closed = writer.Close();
  if (stats != nullptr) *stats = writer.stats();
  return status.ok() ? closed : status;
}

absl::Status WriteTraceDatBuffers(
    const std::string& path, int cpus, const Scenario* top,
    const std::vector<std::pair<std::string, const Scenario*>>& instances) {
  TraceDatWriterOptions options;
  options.cpus = cpus;
  // The saved cmdlines are the system's: every buffer's tasks.
  std::map<int32_t, std::string> cmdlines;
  auto add_tasks = [&cmdlines](const Scenario* scenario) {
    if (scenario == nullptr) return;
    for (auto& [pid, comm] : scenario->Cmdlines()) cmdlines.emplace(pid, std::move(comm));
  };
  add_tasks(top);
  for (const auto& [name, scenario] : instances) {
    options.buffer_instances.push_back(name);
    add_tasks(scenario);
  }
  options.cmdlines.assign(cmdlines.begin(), cmdlines.end());
  TraceDatWriter writer;
  absl::Status status = writer.Open(path, options);
  if (status.ok() && top != nullptr) status = top->WriteEvents(&writer);
  for (size_t i = 0; i < instances.size() && status.ok(); ++i) {
    status = writer.BeginBuffer(i);
    if (status.ok() && instances[i].second != nullptr) {
      status = instances[i].second->WriteEvents(&writer);
    }
  }
  absl::Status closed = writer.Close();
  return status.ok() ? closed : status;
}

}  // namespace napiscope::tracegen
