#include "fact_tracks.h"

#include <fmt/format.h>

#include "napiscope/task_class.h"

namespace napiscope::perfetto_export {
namespace {

constexpr uint32_t kNetRx = 3;

}  // namespace

void FactTracks::NetRxPending(uint16_t cpu, TimestampNs ts_ns, int64_t value) {
  if (!InScope(options_, cpu, ts_ns, ts_ns)) return;
  layout_->writer()->Counter(layout_->CpuTrack(TrackKind::kCpuNetRxPending, cpu), ts_ns, value);
}

void FactTracks::OnSoftirqRaise(const SoftirqRaiseFact& raise) {
  if (raise.vec == kNetRx) NetRxPending(raise.cpu, raise.raise_ns, 1);
}

void FactTracks::OnSoftirqWait(const SoftirqWaitFact& wait) {
  if (wait.vec == kNetRx && wait.paired()) NetRxPending(wait.cpu, wait.entry_ns, 0);
  if (!wait.paired() || !options_.window.Contains(wait.raise_ns) ||
      !InScope(options_, wait.cpu, wait.raise_ns, wait.entry_ns)) {
    return;
  }
  args_.assign({{"vec", int64_t{wait.vec}},
                {"delay_ns", wait.delay_ns()},
                {"ran_in", SoftirqSiteName(wait.site)},
                {"pending_mask", int64_t{wait.pending_mask}}});
  layout_->writer()->Slice(layout_->SoftirqWaits(wait.cpu, wait.vec), wait.raise_ns,
                           wait.entry_ns, "softirq_wait",
                           fmt::format("{} wait", SoftirqVectorName(wait.vec)), args_);
}

void FactTracks::OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) {
  if (raise.vec == kNetRx) NetRxPending(raise.cpu, gap_ns, 0);
}

// The hard IRQ or wakeup as an instant on the activating CPU, a flow from it to the
// activation's slice on the thread's track.
void FactTracks::OnThreadActivation(const ThreadActivationFact& a) {
  if (a.lost || !options_.window.Contains(a.woken_ns) ||
      !InScope(options_, a.to_cpu, a.woken_ns, a.run_ns)) {
    return;
  }
  TrackWriter* writer = layout_->writer();
  uint64_t flow = writer->NewFlow();
  bool by_irq = a.task_class == TaskClass::kIrqThread && a.irq >= 0;
  std::string_view comm = layout_->Str(a.comm);
  args_.assign({{"pid", int64_t{a.pid}}, {"comm", comm}});
  if (by_irq) args_.push_back({"irq", int64_t{a.irq}});
  uint64_t out[] = {flow};
  writer->Instant(layout_->CpuTrack(TrackKind::kCpuWakeups, a.from_cpu), a.woken_ns, "wakeup",
                  by_irq ? fmt::format("hard IRQ {} -> {}", a.irq, comm)
                         : fmt::format("wakeup -> {}", comm),
                  args_, Flows{out, {}});
  args_.assign({{"pid", int64_t{a.pid}},
                {"from_cpu", int64_t{a.from_cpu}},
                {"to_cpu", int64_t{a.to_cpu}},
                {"cross_cpu", a.cross_cpu()},
                {"exact", a.exact},
                {"wait_ns", a.run_ns - a.woken_ns}});
  writer->Slice(layout_->ThreadActivations(a.pid), a.woken_ns, a.run_ns, "activation",
                a.cross_cpu() ? "cross-CPU activation" : "same-CPU activation", args_,
                Flows{{}, out});
}

bool FactTracks::Watched(const WakeWaitFact& wait) {
  uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(wait.pid)) << 32) ^ wait.waking_comm;
  WatchedSlot& slot = watched_[(key * 0x9e3779b97f4a7c15) >> 54];  // 10 bits: 1024 slots
  if (!slot.valid || slot.pid != wait.pid || slot.prio != wait.waking_prio ||
      slot.comm != wait.waking_comm) {
    slot = {wait.pid, wait.waking_prio, wait.waking_comm,
            WakeLatencyWatches(wait.pid, layout_->Str(wait.waking_comm), wait.waking_prio), true};
  }
  return slot.watched;
}

void FactTracks::OnWakeQueued(const WakeWaitFact& wait) {
  if (!options_.window.Contains(wait.waking_ns) || !Watched(wait)) {
    return;
  }
  waits_[wait.wait_id] = {wait.waking_ns, wait.waker_cpu, 0};
}

void FactTracks::OnWakeMoved(uint64_t wait_id, uint16_t, uint16_t, TimestampNs) {
  if (auto it = waits_.find(wait_id); it != waits_.end()) ++it->second.moves;
}

void FactTracks::OnWakeRan(const WakeRunFact& run) {
  auto it = waits_.find(run.wait_id);
  if (it == waits_.end()) return;
  OpenWait wait = it->second;
  waits_.erase(it);
  if (!InScope(options_, run.cpu, wait.waking_ns, run.run_ns)) return;
  args_.assign({{"pid", int64_t{run.pid}},
                {"prio", int64_t{run.prio}},
                {"wait_ns", run.run_ns - wait.waking_ns},
                {"waker_cpu", int64_t{wait.waker_cpu}},
                {"run_cpu", int64_t{run.cpu}},
                {"moves", int64_t{wait.moves}}});
  layout_->writer()->Slice(layout_->Thread(run.pid), wait.waking_ns, run.run_ns, "wake",
                           "wake -> run", args_);
}

void FactTracks::OnWakeDropped(uint64_t wait_id, WakeDropReason, TimestampNs) {
  waits_.erase(wait_id);
}

}  // namespace napiscope::perfetto_export
