#include "analysis/idle_pending.h"

#include <algorithm>

namespace napiscope::internal {

IdlePending::CpuState& IdlePending::Grow(uint16_t cpu) {
  cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

void IdlePending::OnSoftirqWait(const SoftirqWaitFact& wait) {
  CpuState& cpu = Cpu(wait.cpu);
  uint32_t vec = wait.vec;
  TimestampNs entry_ns = wait.entry_ns;
  for (size_t index : cpu.open_idle) {
    IdleWithPendingRow& row = idle_rows_[index];
    auto it = row.processed_after_ns.find(vec);
    if (it != row.processed_after_ns.end() && it->second < 0) it->second = entry_ns - row.ts_ns;
  }
  std::erase_if(cpu.open_idle, [&](size_t index) {
    const auto& after = idle_rows_[index].processed_after_ns;
    return std::none_of(after.begin(), after.end(), [](const auto& kv) { return kv.second < 0; });
  });
  Blocker& blocker = cpu.blocker[vec];
  if (!blocker.present) return;
  blocker.present = false;
  if (!wait.paired()) return;  // a blocker is set only at a raise that made the vector pending
  TimestampNs raised = wait.raise_ns;
  int64_t waited = entry_ns - raised;
  if (waited < stall_threshold_ns_ || !window_.Contains(raised)) return;
  if (stall_rows_.size() >= max_rows_) {
    ++stall_overflow_;
    return;
  }
  SoftirqOrderingStallRow row;
  row.cpu = wait.cpu;
  row.vec = vec;
  row.raise_ns = raised;
  row.entry_ns = entry_ns;
  row.wait_ns = waited;
  row.blocking_vec = blocker.vec;
  row.blocking_pid = blocker.pid;
  row.blocking_comm =  // the blocking softirq ran on this CPU
      context_ ? TaskNameOnCpu(context_->tasks, context_->strings, blocker.pid, row.cpu, raised) : "";
  row.blocking_site = std::string(SoftirqSiteName(blocker.site));
  row.blocking_preempted = blocker.preempted;
  stall_rows_.push_back(std::move(row));
}

void IdlePending::OnSoftirqRaise(const SoftirqRaiseFact& raise) {
  Blocker& blocker = Cpu(raise.cpu).blocker[raise.vec];
  blocker.present = false;
  for (const ContextFrame& frame : tracker_->OpenSoftirqFrames(raise.cpu)) {
    if (frame.vec < raise.vec && (!blocker.present || frame.vec < blocker.vec)) {
      blocker = {true, frame.vec, frame.pid, frame.site,
                 frame.pid != tracker_->CurrentPid(raise.cpu)};
    }
  }
  if (blocker.present && latency_ != nullptr && stall_rows_.size() < max_rows_) {
    latency_->KeepBlame(raise.cpu, raise.vec, stall_threshold_ns_);
  }
}

void IdlePending::OnEnd() {
  if (latency_ == nullptr || context_ == nullptr) return;
  for (SoftirqOrderingStallRow& row : stall_rows_) {
    const WaitBlame* blame = latency_->KeptBlame(row.cpu, row.vec, row.raise_ns);
    if (blame == nullptr) continue;
    row.blame = blame->Items(context_->strings);
    row.unknown_ns = blame->unknown_ns();
    row.blocking_held_ns = 0;
    for (const BlameItem& item : row.blame) {
      if (item.kind == ContextKind::kSoftirq && item.vec == row.blocking_vec) {
        row.blocking_held_ns += item.time_ns;
      }
    }
  }
}

void IdlePending::OnEvent(const Event& event) {
  switch (event.kind) {
    case EventKind::kMissedEvents: {
      CpuState& cpu = Cpu(event.cpu);
      cpu.open_idle.clear();  // what is still -1 stays unknown: the entry may be in the gap
      for (Blocker& blocker : cpu.blocker) blocker.present = false;
      break;
    }
    case EventKind::kSchedSwitch: {
      uint32_t mask = facts_->PendingSoftirqs(event.cpu);
      if (event.sched_switch.next_pid != 0 || mask == 0 || !window_.Contains(event.ts_ns)) break;
      if (idle_rows_.size() >= max_rows_) {
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
      Cpu(event.cpu).open_idle.push_back(idle_rows_.size());
      idle_rows_.push_back(std::move(row));
      break;
    }
    default:
      break;
  }
}

}  // namespace napiscope::internal
