#include "analysis/idle_pending.h"

#include <algorithm>

namespace napiscope::internal {

IdlePending::CpuState& IdlePending::Cpu(uint16_t cpu) {
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

void IdlePending::Entered(CpuState& cpu, const Event& event) {
  uint32_t vec = event.softirq.vec;
  if (vec >= 32) return;
  for (size_t index : cpu.open_idle) {
    IdleWithPendingRow& row = idle_rows_[index];
    auto it = row.processed_after_ns.find(vec);
    if (it != row.processed_after_ns.end() && it->second < 0) it->second = event.ts_ns - row.ts_ns;
  }
  std::erase_if(cpu.open_idle, [&](size_t index) {
    const auto& after = idle_rows_[index].processed_after_ns;
    return std::none_of(after.begin(), after.end(), [](const auto& kv) { return kv.second < 0; });
  });
  Blocker& blocker = cpu.blocker[vec];
  if (!blocker.present) return;
  blocker.present = false;
  TimestampNs raised = pending_.RaisedAt(event.cpu, vec);
  int64_t wait = event.ts_ns - raised;
  if (wait < stall_threshold_ns_ || !window_.Contains(raised)) return;
  if (stall_rows_.size() >= kMaxRows) {
    ++stall_overflow_;
    return;
  }
  SoftirqOrderingStallRow row;
  row.cpu = event.cpu;
  row.vec = vec;
  row.raise_ns = raised;
  row.entry_ns = event.ts_ns;
  row.wait_ns = wait;
  row.blocking_vec = blocker.vec;
  row.blocking_pid = blocker.pid;
  row.blocking_comm =
      context_ ? std::string(context_->strings.Get(context_->tasks.CommAt(blocker.pid, raised))) : "";
  row.blocking_site = std::string(SoftirqSiteName(blocker.site));
  row.blocking_preempted = blocker.preempted;
  stall_rows_.push_back(std::move(row));
}

void IdlePending::OnEvent(const Event& event) {
  CpuState& cpu = Cpu(event.cpu);
  if (event.kind == EventKind::kSoftirqEntry) {
    Entered(cpu, event);  // before Apply clears the raise time
    pending_.Apply(event);
    return;
  }
  bool newly_raised = pending_.Apply(event);
  switch (event.kind) {
    case EventKind::kSoftirqRaise: {
      uint32_t vec = event.softirq.vec;
      if (!newly_raised) break;
      Blocker& blocker = cpu.blocker[vec];
      blocker.present = false;
      for (const ContextFrame& frame : tracker_->OpenSoftirqFrames(event.cpu)) {
        if (frame.vec < vec && (!blocker.present || frame.vec < blocker.vec)) {
          blocker = {true, frame.vec, frame.pid, frame.site,
                     frame.pid != tracker_->CurrentPid(event.cpu)};
        }
      }
      break;
    }
    case EventKind::kMissedEvents:
      cpu.open_idle.clear();  // what is still -1 stays unknown: the entry may be in the gap
      for (Blocker& blocker : cpu.blocker) blocker.present = false;
      break;
    case EventKind::kSchedSwitch: {
      uint32_t mask = pending_.Mask(event.cpu);
      if (event.sched_switch.next_pid != 0 || mask == 0 || !window_.Contains(event.ts_ns)) break;
      if (idle_rows_.size() >= kMaxRows) {
        ++idle_overflow_;
        break;
      }
      IdleWithPendingRow row;
      row.cpu = event.cpu;
      row.ts_ns = event.ts_ns;
      row.pending_mask = mask;
      for (uint32_t vec = 0; vec < 32; ++vec) {
        if (mask & (1u << vec)) row.processed_after_ns[vec] = -1;
      }
      cpu.open_idle.push_back(idle_rows_.size());
      idle_rows_.push_back(std::move(row));
      break;
    }
    default:
      break;
  }
}

}  // namespace napiscope::internal
