#include "analysis/ksoftirqd_blocked.h"

#include <algorithm>

#include <fmt/format.h>

#include "napiscope/format.h"

namespace napiscope::internal {
namespace {

constexpr size_t kMaxHolders = 2;

TimestampNs& At(std::vector<TimestampNs>& v, size_t index) {
  if (index >= v.size()) v.resize(index + 1, 0);
  return v[index];
}

}  // namespace

ChainLink KsoftirqdBlocked::Link(int32_t pid, int cpu, TimestampNs ts_ns, std::string relation,
                                 TimestampNs since) const {
  ChainLink link;
  link.pid = pid;
  link.relation = std::move(relation);
  link.since_ns = since;
  if (context_ != nullptr) {
    link.comm = TaskNameOnCpu(context_->tasks, context_->strings, pid, cpu, ts_ns);
    if (const TaskRecord* task = context_->tasks.Find(pid)) link.prio = task->last_prio;
  }
  return link;
}

bool KsoftirqdBlocked::Running(int32_t pid, int* cpu) const {
  int cpus = context_ != nullptr ? context_->meta.cpus : 0;
  for (int c = 0; c < cpus; ++c) {
    if (tracker_->CurrentPid(static_cast<uint16_t>(c)) == pid) {
      *cpu = c;
      return true;
    }
  }
  return false;
}

std::string KsoftirqdBlocked::ContextOf(uint16_t cpu) const {
  const ContextFrame& top = tracker_->Top(cpu);
  std::string_view name = context_ ? context_->strings.Get(top.name) : std::string_view();
  switch (top.kind) {
    case ContextKind::kHardirq:
      return fmt::format("hardirq {}", name);
    case ContextKind::kSoftirq:
      return fmt::format("softirq {}", SoftirqVectorName(top.vec));
    default:
      return "task";
  }
}

// Who the blocked ksoftirqd waited on: the task inside a softirq on that CPU (on PREEMPT_RT it
// holds the CPU's softirq lock), then what kept that task from finishing, step by step.
void KsoftirqdBlocked::Chain(KsoftirqdBlockedRow& row, int cpu, TimestampNs ts_ns) {
  size_t holders = 0;
  for (const ContextFrame& frame : tracker_->OpenSoftirqFrames(static_cast<uint16_t>(cpu))) {
    if (frame.pid == row.pid || holders == kMaxHolders) continue;
    ++holders;
    row.chain.push_back(Link(frame.pid, cpu, ts_ns,
                             fmt::format("inside {} softirq on CPU{}", SoftirqVectorName(frame.vec),
                                         cpu),
                             frame.entered_ns));
    // A holder that can run but does not is kept off its CPU by whatever runs there now.
    int running_cpu = -1;
    if (Running(frame.pid, &running_cpu) && running_cpu != cpu) {
      row.chain.back().relation += fmt::format(", running on CPU{}", running_cpu);
      continue;
    }
    auto out = last_switch_out_.find(frame.pid);
    if (out != last_switch_out_.end() && !IsRunnableState(out->second.state)) {
      row.chain.back().relation += fmt::format(", switched out in {} at {}",
                                               TaskStateLetters(out->second.state),
                                               FormatTimestamp(out->second.ts_ns));
      continue;
    }
    int holder_cpu = cpu;
    std::string held = row.chain.back().comm;
    size_t holder_link = row.chain.size() - 1;
    if (out != last_switch_out_.end()) {
      holder_cpu = out->second.cpu;
      if (out->second.next_pid != row.pid) {  // not merely the ksoftirqd that then blocked
        row.chain.push_back(Link(out->second.next_pid, holder_cpu, ts_ns,
                                 fmt::format("preempted {} on CPU{}", held, holder_cpu),
                                 out->second.ts_ns));
      }
    }
    int32_t occupant = tracker_->CurrentPid(static_cast<uint16_t>(holder_cpu));
    if (occupant < 0 || occupant == frame.pid) {
      row.chain[holder_link].relation += fmt::format(", runs next on CPU{}", holder_cpu);
    } else if (occupant != row.chain.back().pid) {
      row.chain.push_back(Link(occupant, holder_cpu, ts_ns,
                               fmt::format("runs on CPU{} while {} waits to run", holder_cpu, held),
                               At(switch_in_ns_, holder_cpu)));
    }
  }
}

// The holder a blocked ksoftirqd waits on was preempted: name who did it.
void KsoftirqdBlocked::NoteHolderPreempted(const Event& event) {
  const SchedSwitchFields& s = event.sched_switch;
  for (auto& [pid, row] : open_) {
    if (row.chain.empty() || row.chain.front().pid != s.prev_pid || s.next_pid == pid) continue;
    bool known = std::any_of(row.chain.begin(), row.chain.end(),
                             [&](const ChainLink& link) { return link.pid == s.next_pid; });
    if (known) continue;
    row.chain.push_back(Link(s.next_pid, event.cpu, event.ts_ns,
                             fmt::format("preempted {} on CPU{}", row.chain.front().comm, event.cpu),
                             event.ts_ns));
  }
}

void KsoftirqdBlocked::Block(const Event& event) {
  const SchedSwitchFields& s = event.sched_switch;
  KsoftirqdBlockedRow row;
  row.cpu = event.cpu;
  row.pid = s.prev_pid;
  row.comm = context_ ? std::string(context_->strings.Get(s.prev_comm)) : "";
  row.state = TaskStateLetters(s.prev_state);
  row.start_ns = event.ts_ns;
  row.pending_mask_start = facts_->PendingSoftirqs(event.cpu);
  Chain(row, event.cpu, event.ts_ns);
  blocked_prio_[s.prev_pid] = s.prev_prio;
  open_[s.prev_pid] = std::move(row);
}

// The holder before the switch held the CPU since it took it; a switch to an unknown task
// (lost events) charges nobody, as nobody is known to have held the CPU up to it.
void KsoftirqdBlocked::OnTaskSwitch(const TaskSwitchFact& change) {
  if (change.prev_pid >= 0 && change.next_pid >= 0) {
    for (auto& [pid, row] : open_) {
      if (row.cpu != change.cpu) continue;
      TimestampNs from = std::max(row.start_ns, At(switch_in_ns_, change.cpu));
      if (change.ts_ns > from) held_[pid][change.prev_pid] += change.ts_ns - from;
    }
  }
  At(switch_in_ns_, change.cpu) = change.ts_ns;
}

void KsoftirqdBlocked::Close(KsoftirqdBlockedRow row, TimestampNs end_ns, bool end_known) {
  // The row has left open_ already: charge the task running since the CPU's last switch here.
  if (int32_t holder = facts_->CurrentPid(static_cast<uint16_t>(row.cpu)); holder >= 0) {
    TimestampNs from = std::max(row.start_ns, At(switch_in_ns_, row.cpu));
    if (end_ns > from) held_[row.pid][holder] += end_ns - from;
  }
  blocked_prio_.erase(row.pid);
  if (auto held = held_.find(row.pid); held != held_.end()) {
    for (const auto& [pid, ns] : held->second) {
      TaskTime time;
      time.pid = pid;
      time.time_ns = ns;
      if (context_ != nullptr) {
        time.comm = TaskNameOnCpu(context_->tasks, context_->strings, pid, row.cpu, end_ns);
        if (const TaskRecord* task = context_->tasks.Find(pid)) time.prio = task->last_prio;
      }
      row.cpu_held_by.push_back(std::move(time));
    }
    std::sort(row.cpu_held_by.begin(), row.cpu_held_by.end(),
              [](const TaskTime& a, const TaskTime& b) { return a.time_ns > b.time_ns; });
    held_.erase(held);
  }
  row.end_ns = end_ns;
  row.end_known = end_known;
  row.duration_ns = end_ns - row.start_ns;
  if (rows_.size() < max_rows_) {
    rows_.push_back(std::move(row));
  } else {
    ++overflow_;
  }
}

void KsoftirqdBlocked::OnEvent(const Event& event) {
  last_ts_ns_ = std::max(last_ts_ns_, event.ts_ns);
  switch (event.kind) {
    case EventKind::kMissedEvents:
      for (auto it = open_.begin(); it != open_.end();) {
        if (it->second.cpu == event.cpu) {
          Close(std::move(it->second), event.ts_ns, false);
          open_.erase(it++);
        } else {
          ++it;
        }
      }
      break;
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& s = event.sched_switch;
      if (IsRunnableState(s.prev_state)) NoteHolderPreempted(event);
      last_switch_out_[s.prev_pid] = {event.ts_ns, event.cpu, s.prev_state, s.next_pid};
      if (auto it = open_.find(s.next_pid); it != open_.end()) {
        Close(std::move(it->second), event.ts_ns, true);  // ran again; its waking was not seen
        open_.erase(it);
      }
      if (IsRunnableState(s.prev_state) || facts_->PendingSoftirqs(event.cpu) == 0 ||
          !window_.Contains(event.ts_ns)) {
        break;
      }
      int ksoftirqd_cpu = -1;
      std::string_view comm = context_ ? context_->strings.Get(s.prev_comm) : std::string_view();
      if (ParseKsoftirqdName(comm, &ksoftirqd_cpu)) Block(event);
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup: {
      if (context_ == nullptr || !context_->tasks.IsWake(event)) break;
      auto it = open_.find(event.wake.pid);
      if (it == open_.end()) break;
      KsoftirqdBlockedRow row = std::move(it->second);
      open_.erase(it);
      row.waker_pid = event.pid;
      row.waker_comm = context_ ? TaskNameOnCpu(context_->tasks, context_->strings, event.pid,
                                                event.cpu, event.ts_ns)
                                : "";
      row.waker_cpu = event.cpu;
      row.waker_context = ContextOf(event.cpu);
      row.pending_mask_end = facts_->PendingSoftirqs(static_cast<uint16_t>(row.cpu));
      Close(std::move(row), event.ts_ns, true);
      break;
    }
    case EventKind::kSchedPiSetprio: {
      const PiSetprioFields& pi = event.pi;
      if (pi.new_prio >= pi.old_prio) break;
      for (auto& [pid, row] : open_) {
        auto prio = blocked_prio_.find(pid);
        if (prio == blocked_prio_.end() || pi.new_prio > prio->second) continue;
        bool known = std::any_of(row.chain.begin(), row.chain.end(),
                                 [&](const ChainLink& link) { return link.pid == pi.pid; });
        if (known) continue;
        row.chain.push_back(Link(pi.pid, -1, event.ts_ns,
                                 fmt::format("boosted by priority inheritance from {} to {} (holds a "
                                             "lock {} waits for)",
                                             pi.old_prio, pi.new_prio, row.comm),
                                 event.ts_ns));
      }
      break;
    }
    default:
      break;
  }
}

void KsoftirqdBlocked::OnEnd() {
  for (auto& [pid, row] : open_) Close(std::move(row), last_ts_ns_, false);
  open_.clear();
  std::sort(rows_.begin(), rows_.end(), [](const KsoftirqdBlockedRow& a, const KsoftirqdBlockedRow& b) {
    return a.start_ns < b.start_ns;
  });
}

}  // namespace napiscope::internal
