#include "napiscope/task_table.h"

#include <algorithm>

namespace napiscope {

namespace {

// Appends `comm` (0: none) as the name of `pid` from `ts_ns` when it changes it. pid 0 is the
// idle task of every CPU: its name (swapper/N) changes with the CPU, not over time, so only the
// first name events give it is kept (else each CPU change would grow the table).
void AppendComm(TaskRecord& task, int32_t pid, StringId comm, TimestampNs ts_ns) {
  if (comm == 0 || (!task.comms.empty() && task.comms.back().comm == comm)) return;
  if (pid == 0 && !task.comms.empty() && task.comms.back().since_ns != INT64_MIN) return;
  task.comms.push_back({ts_ns, comm});
}

// True when AppendComm will ignore every later name of the idle task `task`.
bool IdleNameFixed(const TaskRecord& task) {
  return !task.comms.empty() && task.comms.back().since_ns != INT64_MIN;
}

}  // namespace

void TaskTable::ObserveComm(int32_t pid, StringId comm, TimestampNs ts_ns) {
  if (comm == 0) return;
  RecentOf(pid).pid = kNoPid;
  TaskRecord& task = tasks_[pid];
  AppendComm(task, pid, comm, ts_ns);
  if (pid == 0) idle_named_by_event_ = IdleNameFixed(task);
}

void TaskTable::ObservePrio(int32_t pid, int16_t prio) {
  RecentOf(pid).pid = kNoPid;
  tasks_[pid].last_prio = prio;
}

void TaskTable::Observe(int32_t pid, StringId comm, bool has_prio, int16_t prio,
                        TimestampNs ts_ns) {
  // The idle task's comm differs per CPU (swapper/N); once fixed it would only defeat `recent`.
  if (pid == 0 && idle_named_by_event_) comm = 0;
  if (comm == 0 && !has_prio) return;
  RecentObservation& recent = RecentOf(pid);
  if (recent.pid == pid && recent.comm == comm && (!has_prio || recent.prio == prio)) return;
  TaskRecord& task = tasks_[pid];
  AppendComm(task, pid, comm, ts_ns);
  if (pid == 0) idle_named_by_event_ = IdleNameFixed(task);
  if (has_prio) task.last_prio = prio;
  recent = {pid, comm, task.last_prio};
}

void TaskTable::SetInitialComm(int32_t pid, StringId comm) {
  if (comm == 0) return;
  TaskRecord& task = tasks_[pid];
  if (task.comms.empty()) task.comms.push_back({INT64_MIN, comm});
}

void TaskTable::ApplyNote(CpuNote note, const Event& event) {
  if (note.irq_exited && event.kind == EventKind::kSoftirqEntry && softirqs_at_irq_exit_ < 255) {
    ++softirqs_at_irq_exit_;
  }
  bool wake = IsWake(event);
  if (note.wakes_thread_of_irq >= 0 && wake) {
    tasks_[event.wake.pid].woken_as_thread_of_irq = note.wakes_thread_of_irq;
    any_irq_thread_by_behaviour_ = true;
  }
  if (note.raised_vec >= 0 && wake && event.wake.pid > 0 && event.wake.pid != event.pid) {
    woken_after_raise_[event.wake.pid] |= 1u << note.raised_vec;
  }
  if (note.switched_in < 0) return;
  auto candidate = woken_after_raise_.find(note.switched_in);
  if (candidate == woken_after_raise_.end()) return;
  uint32_t vectors = candidate->second;
  woken_after_raise_.erase(candidate);
  if (event.kind != EventKind::kSoftirqEntry || event.pid != note.switched_in ||
      event.softirq.vec >= 32 || (vectors >> event.softirq.vec & 1) == 0) {
    return;
  }
  // On a kernel that runs softirqs at irq_exit the sequence is a coincidence: a task woken
  // from the tick that runs a pending softirq at its own local_bh_enable.
  if (softirqs_at_irq_exit()) return;
  tasks_[note.switched_in].served_softirq_vectors |= 1u << event.softirq.vec;
  any_softirq_thread_by_behaviour_ = true;
}

void TaskTable::NoteThreadBehaviour(const Event& event) {
  if (noted_cpus_ > 0 && event.cpu < notes_.size()) {
    CpuNote& note = notes_[event.cpu];
    if (!note.empty()) {
      CpuNote previous = note;
      note = CpuNote{};
      --noted_cpus_;
      ApplyNote(previous, event);
    }
  }
  CpuNote next;
  if (event.kind == EventKind::kIrqHandlerExit || event.kind == EventKind::kIrqVectorExit) {
    next.irq_exited = true;
    if (event.kind == EventKind::kIrqHandlerExit && event.irq.ret == kIrqWakeThread &&
        event.irq.irq >= 0) {
      next.wakes_thread_of_irq = event.irq.irq;
    }
  } else if (event.kind == EventKind::kSoftirqRaise && event.softirq.vec < 32) {
    next.raised_vec = static_cast<int32_t>(event.softirq.vec);
  } else if (event.kind == EventKind::kSchedSwitch && !woken_after_raise_.empty() &&
             woken_after_raise_.contains(event.sched_switch.next_pid)) {
    next.switched_in = event.sched_switch.next_pid;
  } else {
    return;
  }
  if (event.cpu >= notes_.size()) notes_.resize(event.cpu + 1);
  notes_[event.cpu] = next;
  ++noted_cpus_;
}

void TaskTable::ObserveEvent(const Event& event) {
  TimestampNs ts = event.ts_ns;
  if (event.kind == EventKind::kSchedWaking) waking_seen_ = true;
  // Only a note left by the CPU's last event or an event that may leave one needs the call.
  bool note_pending = noted_cpus_ > 0 && event.cpu < notes_.size() && !notes_[event.cpu].empty();
  if (note_pending || (kNotingKinds & MaskOf(event.kind)) != 0) NoteThreadBehaviour(event);
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& s = event.sched_switch;
      Observe(s.prev_pid, s.prev_comm, true, s.prev_prio, ts);
      Observe(s.next_pid, s.next_comm, true, s.next_prio, ts);
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      Observe(event.wake.pid, event.wake.comm, true, event.wake.prio, ts);
      break;
    case EventKind::kSchedMigrateTask:
      Observe(event.migrate.pid, event.migrate.comm, false, 0, ts);
      break;
    case EventKind::kSchedPiSetprio:
      Observe(event.pi.pid, event.pi.comm, false, 0, ts);
      break;
    case EventKind::kSchedProcessFork:
      Observe(event.fork.child_pid, event.fork.child_comm, false, 0, ts);
      break;
    case EventKind::kSchedProcessExit:
      Observe(event.exit.pid, event.exit.comm, false, 0, ts);
      break;
    default:
      break;
  }
}

StringId TaskTable::CommOf(int32_t pid) const {
  auto it = tasks_.find(pid);
  if (it == tasks_.end() || it->second.comms.empty()) return 0;
  return it->second.comms.back().comm;
}

StringId TaskTable::CommAt(int32_t pid, TimestampNs ts_ns) const {
  auto it = tasks_.find(pid);
  if (it == tasks_.end() || it->second.comms.empty()) return 0;
  const auto& comms = it->second.comms;
  auto after = std::upper_bound(comms.begin(), comms.end(), ts_ns,
                                [](TimestampNs ts, const TaskRecord::CommChange& change) {
                                  return ts < change.since_ns;
                                });
  if (after == comms.begin()) return comms.front().comm;
  // Saved cmdlines hold the name at the end of the recording (after any exec); before the
  // first name an event gave, that event's name is the one the task had.
  auto at = std::prev(after);
  if (at->since_ns == INT64_MIN && std::next(at) != comms.end()) return std::next(at)->comm;
  return at->comm;
}

const TaskRecord* TaskTable::Find(int32_t pid) const {
  auto it = tasks_.find(pid);
  return it == tasks_.end() ? nullptr : &it->second;
}

std::string IdleTaskName(int cpu) { return "swapper/" + std::to_string(cpu); }

std::string TaskNameOnCpu(const TaskTable& tasks, const StringTable& strings, int32_t pid,
                          int cpu, TimestampNs ts_ns) {
  if (pid == 0 && cpu >= 0) return IdleTaskName(cpu);
  return std::string(strings.Get(tasks.CommAt(pid, ts_ns)));
}

}  // namespace napiscope
