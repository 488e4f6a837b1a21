#include "tracegen/scenario.h"

#include <algorithm>

#include <absl/strings/str_cat.h>

#include "tracegen/record_encoder.h"

namespace napiscope::tracegen {

EventRef& EventRef::Pid(int32_t pid) {
  scenario_->events_[index_].event.pid = pid;
  scenario_->events_[index_].pid_set = true;
  return *this;
}

EventRef& EventRef::Flags(uint8_t flags) {
  scenario_->events_[index_].event.flags = flags;
  scenario_->events_[index_].flags_set = true;
  return *this;
}

Scenario::Scenario(int cpus) : cpus_(std::max(1, cpus)), running_(cpus_, 0) {
  // The idle task is pid 0 on every CPU, named per CPU.
  for (int cpu = 0; cpu < cpus_; ++cpu) strings_.Intern(absl::StrCat("swapper/", cpu));
}

void Scenario::Fail(std::string message) {
  if (error_.ok()) error_ = absl::InvalidArgumentError(std::move(message));
}

Scenario& Scenario::Task(int32_t pid, std::string_view comm, int prio) {
  if (pid <= 0) {
    Fail(absl::StrCat("task pid must be positive (pid 0 is the idle task): ", pid));
    return *this;
  }
  if (!tasks_.contains(pid)) task_order_.push_back(pid);
  tasks_[pid] = TaskEntry{strings_.Intern(comm), static_cast<int16_t>(prio)};
  return *this;
}

Scenario& Scenario::Running(int cpu, int32_t pid) {
  if (cpu < 0 || cpu >= cpus_) {
    Fail(absl::StrCat("Running: CPU ", cpu, " out of range"));
  } else {
    running_[cpu] = pid;
  }
  return *this;
}

EventRef Scenario::Add(int cpu, TimestampNs ts, EventKind kind) {
  if (cpu < 0 || cpu >= cpus_) Fail(absl::StrCat("CPU ", cpu, " out of range at ts ", ts));
  if (ts < 0) Fail(absl::StrCat("negative timestamp ", ts));
  Pending pending;
  pending.event.ts_ns = ts;
  pending.event.cpu = static_cast<uint16_t>(std::clamp(cpu, 0, cpus_ - 1));
  pending.event.kind = kind;
  pending.event.name = strings_.Intern(EventKindName(kind));
  pending.seq = static_cast<int64_t>(events_.size());
  events_.push_back(pending);
  return EventRef(this, events_.size() - 1);
}

EventRef Scenario::Switch(int cpu, TimestampNs ts, int32_t prev, std::string_view prev_state,
                          int32_t next) {
  EventRef ref = Add(cpu, ts, EventKind::kSchedSwitch);
  SchedSwitchFields& f = Last().sched_switch;
  f.prev_pid = prev;
  f.next_pid = next;
  if (!ParseTaskStateLetters(prev_state, &f.prev_state)) {
    Fail(absl::StrCat("bad prev_state '", std::string(prev_state), "' at ts ", ts));
  }
  return ref;
}

EventRef Scenario::Waking(int cpu, TimestampNs ts, int32_t pid, int target_cpu) {
  EventRef ref = Add(cpu, ts, EventKind::kSchedWaking);
  Last().wake = WakeFields{pid, 0, static_cast<int16_t>(target_cpu), 0};
  return ref;
}

EventRef Scenario::Wakeup(int cpu, TimestampNs ts, int32_t pid, int target_cpu) {
  EventRef ref = Waking(cpu, ts, pid, target_cpu);
  Last().kind = EventKind::kSchedWakeup;
  Last().name = strings_.Intern(EventKindName(EventKind::kSchedWakeup));
  return ref;
}

EventRef Scenario::WakeupNew(int cpu, TimestampNs ts, int32_t pid, int target_cpu) {
  EventRef ref = Waking(cpu, ts, pid, target_cpu);
  Last().kind = EventKind::kSchedWakeupNew;
  Last().name = strings_.Intern(EventKindName(EventKind::kSchedWakeupNew));
  return ref;
}

EventRef Scenario::Migrate(int cpu, TimestampNs ts, int32_t pid, int orig_cpu, int dest_cpu) {
  EventRef ref = Add(cpu, ts, EventKind::kSchedMigrateTask);
  Last().migrate =
      MigrateFields{pid, 0, static_cast<int16_t>(orig_cpu), static_cast<int16_t>(dest_cpu), 0};
  return ref;
}

EventRef Scenario::PiSetprio(int cpu, TimestampNs ts, int32_t pid, int new_prio) {
  EventRef ref = Add(cpu, ts, EventKind::kSchedPiSetprio);
  Last().pi = PiSetprioFields{pid, 0, static_cast<int16_t>(new_prio), 0};
  return ref;
}

EventRef Scenario::Fork(int cpu, TimestampNs ts, int32_t parent, int32_t child) {
  EventRef ref = Add(cpu, ts, EventKind::kSchedProcessFork);
  Last().fork = ForkFields{parent, child, 0};
  return ref;
}

EventRef Scenario::Exit(int cpu, TimestampNs ts, int32_t pid) {
  EventRef ref = Add(cpu, ts, EventKind::kSchedProcessExit);
  Last().exit = ExitFields{pid, 0, 0};
  return ref;
}

EventRef Scenario::IrqEntry(int cpu, TimestampNs ts, int irq, std::string_view handler) {
  EventRef ref = Add(cpu, ts, EventKind::kIrqHandlerEntry);
  Last().irq = IrqFields{irq, 0, strings_.Intern(handler)};
  return ref;
}

EventRef Scenario::IrqExit(int cpu, TimestampNs ts, int irq, int ret) {
  EventRef ref = Add(cpu, ts, EventKind::kIrqHandlerExit);
  Last().irq = IrqFields{irq, ret, 0};
  return ref;
}

EventRef Scenario::SoftirqRaise(int cpu, TimestampNs ts, int vec) {
  EventRef ref = Add(cpu, ts, EventKind::kSoftirqRaise);
  Last().softirq = SoftirqFields{static_cast<uint32_t>(vec)};
  return ref;
}

EventRef Scenario::SoftirqEntry(int cpu, TimestampNs ts, int vec) {
  EventRef ref = Add(cpu, ts, EventKind::kSoftirqEntry);
  Last().softirq = SoftirqFields{static_cast<uint32_t>(vec)};
  return ref;
}

EventRef Scenario::SoftirqExit(int cpu, TimestampNs ts, int vec) {
  EventRef ref = Add(cpu, ts, EventKind::kSoftirqExit);
  Last().softirq = SoftirqFields{static_cast<uint32_t>(vec)};
  return ref;
}

EventRef Scenario::NapiPoll(int cpu, TimestampNs ts, uint64_t napi, std::string_view dev, int work,
                            int budget) {
  EventRef ref = Add(cpu, ts, EventKind::kNapiPoll);
  Last().napi = NapiPollFields{napi, strings_.Intern(dev), work, budget};
  return ref;
}

EventRef Scenario::NetifReceiveSkb(int cpu, TimestampNs ts, std::string_view dev, uint32_t len) {
  EventRef ref = Add(cpu, ts, EventKind::kNetifReceiveSkb);
  Last().net = NetFields{strings_.Intern(dev), len, 0};
  return ref;
}

EventRef Scenario::NetifRx(int cpu, TimestampNs ts, std::string_view dev, uint32_t len) {
  EventRef ref = NetifReceiveSkb(cpu, ts, dev, len);
  Last().kind = EventKind::kNetifRx;
  Last().name = strings_.Intern(EventKindName(EventKind::kNetifRx));
  return ref;
}

EventRef Scenario::NetDevXmit(int cpu, TimestampNs ts, std::string_view dev, uint32_t len, int rc) {
  EventRef ref = NetifReceiveSkb(cpu, ts, dev, len);
  Last().kind = EventKind::kNetDevXmit;
  Last().name = strings_.Intern(EventKindName(EventKind::kNetDevXmit));
  Last().net.rc = rc;
  return ref;
}

EventRef Scenario::Vector(int cpu, TimestampNs ts, std::string_view name, int vector) {
  EventRef ref = Other(cpu, ts, name);
  if (Last().kind != EventKind::kIrqVectorEntry && Last().kind != EventKind::kIrqVectorExit) {
    Fail(absl::StrCat("'", std::string(name), "' is not an irq_vectors event"));
  }
  Last().irq = IrqFields{vector, 0, strings_.Intern(IrqVectorBaseName(name))};
  return ref;
}

EventRef Scenario::Other(int cpu, TimestampNs ts, std::string_view name) {
  EventRef ref = Add(cpu, ts, EventKindFromName(name));
  Last().name = strings_.Intern(name);
  return ref;
}

void Scenario::Missed(int cpu, TimestampNs ts, int64_t count) {
  Add(cpu, ts, EventKind::kMissedEvents);
  Last().name = 0;
  Last().pid = -1;
  Last().missed = MissedFields{count};
}

std::string_view Scenario::CommOf(int32_t pid) const {
  auto it = tasks_.find(pid);
  if (it != tasks_.end()) return strings_.Get(it->second.comm);
  return pid == 0 ? std::string_view("swapper/0") : std::string_view();
}

std::vector<std::pair<int32_t, std::string>> Scenario::Cmdlines() const {
  std::vector<std::pair<int32_t, std::string>> cmdlines;
  for (int32_t pid : task_order_) {
    cmdlines.emplace_back(pid, std::string(strings_.Get(tasks_.at(pid).comm)));
  }
  return cmdlines;
}

}  // namespace napiscope::tracegen
