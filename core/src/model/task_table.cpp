#include "napiscope/task_table.h"

#include <algorithm>

namespace napiscope {

void TaskTable::ObserveComm(int32_t pid, StringId comm, TimestampNs ts_ns) {
  if (comm == 0) return;
  TaskRecord& task = tasks_[pid];
  if (!task.comms.empty() && task.comms.back().comm == comm) return;
  task.comms.push_back({ts_ns, comm});
}

void TaskTable::ObservePrio(int32_t pid, int16_t prio) { tasks_[pid].last_prio = prio; }

void TaskTable::SetInitialComm(int32_t pid, StringId comm) {
  if (comm == 0) return;
  TaskRecord& task = tasks_[pid];
  if (task.comms.empty()) task.comms.push_back({INT64_MIN, comm});
}

void TaskTable::ObserveEvent(const Event& event) {
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& s = event.sched_switch;
      ObserveComm(s.prev_pid, s.prev_comm, event.ts_ns);
      ObserveComm(s.next_pid, s.next_comm, event.ts_ns);
      ObservePrio(s.prev_pid, s.prev_prio);
      ObservePrio(s.next_pid, s.next_prio);
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      ObserveComm(event.wake.pid, event.wake.comm, event.ts_ns);
      ObservePrio(event.wake.pid, event.wake.prio);
      break;
    case EventKind::kSchedMigrateTask:
      ObserveComm(event.migrate.pid, event.migrate.comm, event.ts_ns);
      break;
    case EventKind::kSchedPiSetprio:
      ObserveComm(event.pi.pid, event.pi.comm, event.ts_ns);
      break;
    case EventKind::kSchedProcessFork:
      ObserveComm(event.fork.child_pid, event.fork.child_comm, event.ts_ns);
      break;
    case EventKind::kSchedProcessExit:
      ObserveComm(event.exit.pid, event.exit.comm, event.ts_ns);
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
  return after == comms.begin() ? comms.front().comm : std::prev(after)->comm;
}

const TaskRecord* TaskTable::Find(int32_t pid) const {
  auto it = tasks_.find(pid);
  return it == tasks_.end() ? nullptr : &it->second;
}

}  // namespace napiscope
