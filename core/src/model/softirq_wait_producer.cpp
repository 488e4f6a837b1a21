#include "model/softirq_wait_producer.h"

#include "model/irq_source.h"

namespace napiscope::internal {

SoftirqWaitProducer::Cpu& SoftirqWaitProducer::CpuOf(uint16_t cpu) {
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

// Raising a vector that is already pending sets a bit that is set: nothing changes.
void SoftirqWaitProducer::Raise(const Event& event) {
  Cpu& cpu = CpuOf(event.cpu);
  uint32_t bit = 1u << event.softirq.vec;
  if (cpu.mask & bit) return;
  cpu.mask |= bit;
  cpu.raised_ns[event.softirq.vec] = event.ts_ns;
  cpu.raised_from[event.softirq.vec] = IrqSourceAt(tracker_, *threads_, event.cpu);
  SoftirqRaiseFact raise{event.ts_ns, event.cpu, event.softirq.vec, cpu.mask,
                         cpu.raised_from[event.softirq.vec]};
  bus_->Each([&](FactListener& listener) { listener.OnSoftirqRaise(raise); });
}

void SoftirqWaitProducer::Enter(const Event& event) {
  Cpu& cpu = CpuOf(event.cpu);
  uint32_t vec = event.softirq.vec;
  SoftirqWaitFact wait;
  wait.entry_ns = event.ts_ns;
  wait.cpu = event.cpu;
  wait.vec = vec;
  wait.pending_mask = cpu.mask;
  if (cpu.mask & (1u << vec)) {
    wait.raise_ns = cpu.raised_ns[vec];
    wait.source = cpu.raised_from[vec];
  }
  cpu.mask &= ~(1u << vec);
  if (tracker_ != nullptr) {
    const ContextFrame& top = tracker_->Top(event.cpu);
    if (top.kind == ContextKind::kSoftirq && top.vec == vec) wait.site = top.site;
    wait.task_pid = top.pid;
    wait.task_prio = top.prio;
  }
  bus_->Each([&](FactListener& listener) { listener.OnSoftirqWait(wait); });
}

// Lost events: whatever was pending may have run unseen, so none of it can be paired.
void SoftirqWaitProducer::Drop(const Event& event) {
  Cpu& cpu = CpuOf(event.cpu);
  uint32_t mask = cpu.mask;
  cpu.mask = 0;
  for (uint32_t vec = 0; vec < kMaxVectors; ++vec) {
    if (!(mask & (1u << vec))) continue;
    SoftirqRaiseFact raise{cpu.raised_ns[vec], event.cpu, vec, mask, cpu.raised_from[vec]};
    bus_->Each([&](FactListener& listener) { listener.OnSoftirqWaitDropped(raise, event.ts_ns); });
  }
}

}  // namespace napiscope::internal
