#include "fact_tracks.h"

#include <fmt/format.h>

namespace napiscope::perfetto_export {
namespace {

constexpr uint32_t kNetRx = 3;

}  // namespace

FactTracks::FactTracks(TrackLayout* layout, const AnalysisOptions& options)
    : layout_(layout), options_(options) {
  TrackWriter* w = layout->writer();
  iids_ = {w->Category("softirq_wait"),
           w->Category("wakeup"),
           w->Category("activation"),
           w->Category("wake"),
           w->EventName("cross-CPU activation"),
           w->EventName("same-CPU activation"),
           w->EventName("wake -> run"),
           w->ArgName("vec"),
           w->ArgName("delay_ns"),
           w->ArgName("ran_in"),
           w->ArgName("pending_mask"),
           w->ArgName("pid"),
           w->ArgName("comm"),
           w->ArgName("irq"),
           w->ArgName("from_cpu"),
           w->ArgName("to_cpu"),
           w->ArgName("cross_cpu"),
           w->ArgName("exact"),
           w->ArgName("wait_ns"),
           w->ArgName("prio"),
           w->ArgName("waker_cpu"),
           w->ArgName("run_cpu"),
           w->ArgName("moves")};
}

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
  uint64_t& name = wait_names_[wait.vec & 0xff];
  if (name == 0) {
    name = layout_->writer()->EventName(fmt::format("{} wait", SoftirqVectorName(wait.vec)));
  }
  layout_->writer()->Slice(layout_->SoftirqWaits(wait.cpu, wait.vec), wait.raise_ns,
                           wait.entry_ns, iids_.softirq_wait, name,
                           {{iids_.vec, int64_t{wait.vec}},
                            {iids_.delay_ns, wait.delay_ns()},
                            {iids_.ran_in, SoftirqSiteName(wait.site)},
                            {iids_.pending_mask, int64_t{wait.pending_mask}}});
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
  uint64_t key = (uint64_t{a.comm} << 32) | (by_irq ? static_cast<uint32_t>(a.irq) + 1 : 0);
  auto [name, inserted] = activation_names_.try_emplace(key, 0);
  if (inserted) {
    name->second = writer->EventName(by_irq ? fmt::format("hard IRQ {} -> {}", a.irq, comm)
                                            : fmt::format("wakeup -> {}", comm));
  }
  Arg cause[3] = {{iids_.pid, int64_t{a.pid}}, {iids_.comm, comm}, {iids_.irq, int64_t{a.irq}}};
  uint64_t out[] = {flow};
  writer->Instant(layout_->CpuTrack(TrackKind::kCpuWakeups, a.from_cpu), a.woken_ns,
                  iids_.wakeup, name->second, std::span<const Arg>(cause, by_irq ? 3 : 2),
                  Flows{out, {}});
  writer->Slice(layout_->ThreadActivations(a.pid), a.woken_ns, a.run_ns, iids_.activation,
                a.cross_cpu() ? iids_.cross_cpu_activation : iids_.same_cpu_activation,
                {{iids_.pid, int64_t{a.pid}},
                 {iids_.from_cpu, int64_t{a.from_cpu}},
                 {iids_.to_cpu, int64_t{a.to_cpu}},
                 {iids_.cross_cpu, a.cross_cpu()},
                 {iids_.exact, a.exact},
                 {iids_.wait_ns, a.run_ns - a.woken_ns}},
                Flows{{}, out});
}

void FactTracks::OnWakeQueued(const WakeWaitFact& wait) {
  if (!options_.window.Contains(wait.waking_ns) ||
      !watches_.Watched(wait, [this](StringId id) { return layout_->Str(id); })) {
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
  layout_->writer()->Slice(layout_->Thread(run.pid), wait.waking_ns, run.run_ns, iids_.wake,
                           iids_.wake_to_run,
                           {{iids_.pid, int64_t{run.pid}},
                            {iids_.prio, int64_t{run.prio}},
                            {iids_.wait_ns, run.run_ns - wait.waking_ns},
                            {iids_.waker_cpu, int64_t{wait.waker_cpu}},
                            {iids_.run_cpu, int64_t{run.cpu}},
                            {iids_.moves, int64_t{wait.moves}}});
}

void FactTracks::OnWakeDropped(uint64_t wait_id, WakeDropReason, TimestampNs) {
  waits_.erase(wait_id);
}

}  // namespace napiscope::perfetto_export
