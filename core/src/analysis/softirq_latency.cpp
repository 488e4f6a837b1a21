#include "analysis/softirq_latency.h"

#include <algorithm>

namespace napiscope::internal {
namespace {

// Longer waits first; of equal waits the earlier one.
bool LongerWait(TimestampNs delay_a, TimestampNs raise_a, TimestampNs delay_b,
                TimestampNs raise_b) {
  return delay_a != delay_b ? delay_a > delay_b : raise_a < raise_b;
}

}  // namespace

SoftirqLatency::CpuState& SoftirqLatency::Grow(uint16_t cpu) {
  cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

SoftirqLatency::VecState& SoftirqLatency::Vec(CpuState& cpu, uint32_t vec) {
  if (vec >= cpu.vecs.size()) cpu.vecs.resize(vec + 1);
  return cpu.vecs[vec];
}

void SoftirqLatency::OnSoftirqRaise(const SoftirqRaiseFact& raise) {
  CpuState& cpu = Cpu(raise.cpu);
  if (cpu.spare.empty()) {
    cpu.pending.emplace_back();
  } else {
    cpu.pending.push_back(std::move(cpu.spare.back()));
    cpu.spare.pop_back();
  }
  Wait& wait = cpu.pending.back();
  wait.vec = raise.vec;
  wait.raise_ns = raise.raise_ns;
  wait.entry_ns = 0;
  wait.entered = false;
  wait.blame_complete = false;
  wait.keep_from_ns = -1;
  wait.site = SoftirqSite::kNone;
  wait.blame.Clear();
}

void SoftirqLatency::OnSoftirqWait(const SoftirqWaitFact& fact) {
  CpuState& cpu = Cpu(fact.cpu);
  uint32_t vec = fact.vec;
  VecState& state = Vec(cpu, vec);
  auto found = std::find_if(cpu.pending.begin(), cpu.pending.end(),
                            [vec](const Wait& wait) { return wait.vec == vec; });
  if (!fact.paired() || found == cpu.pending.end()) {
    if (window_.Contains(fact.entry_ns)) ++state.entries_without_raise;
    return;
  }
  Wait wait = std::move(*found);
  cpu.pending.erase(found);
  if (!window_.Contains(wait.raise_ns)) {
    Recycle(cpu, std::move(wait));
    return;
  }
  wait.entered = true;
  wait.entry_ns = fact.entry_ns;
  wait.site = fact.site;
  wait.blame_complete = cpu.segments_until_ns >= wait.entry_ns;
  state.delays.Add(wait.entry_ns - wait.raise_ns, wait.raise_ns);
  ++state.ran_in[wait.site];
  if (wait.keep_from_ns >= 0 && wait.entry_ns - wait.raise_ns >= wait.keep_from_ns) {
    if (!wait.blame_complete) ++cpu.incomplete_worst;
    cpu.kept.push_back(wait);
  }
  KeepIfWorst(cpu, state, std::move(wait));
}

void SoftirqLatency::KeepBlame(uint16_t cpu, uint32_t vec, int64_t min_wait_ns) {
  CpuState& state = Cpu(cpu);
  for (auto it = state.pending.rbegin(); it != state.pending.rend(); ++it) {
    if (it->vec != vec) continue;
    it->keep_from_ns = std::max<int64_t>(min_wait_ns, 0);
    return;
  }
}

const WaitBlame* SoftirqLatency::KeptBlame(int cpu, uint32_t vec, TimestampNs raise_ns) const {
  if (cpu < 0 || static_cast<size_t>(cpu) >= cpus_.size()) return nullptr;
  for (const Wait& wait : cpus_[static_cast<size_t>(cpu)].kept) {
    if (wait.vec == vec && wait.raise_ns == raise_ns) return &wait.blame;
  }
  return nullptr;
}

void SoftirqLatency::OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) {
  (void)gap_ns;
  CpuState& cpu = Cpu(raise.cpu);
  if (window_.Contains(raise.raise_ns)) ++Vec(cpu, raise.vec).dropped_pairs;
  std::erase_if(cpu.pending, [&](const Wait& wait) { return wait.vec == raise.vec; });
}

// Keeps the kWorstWaits longest waits; the order does not depend on when blame completes.
void SoftirqLatency::KeepIfWorst(CpuState& cpu, VecState& state, Wait wait) {
  TimestampNs delay = wait.entry_ns - wait.raise_ns;
  auto position = std::find_if(state.worst.begin(), state.worst.end(), [&](const Wait& kept) {
    return LongerWait(delay, wait.raise_ns, kept.entry_ns - kept.raise_ns, kept.raise_ns);
  });
  if (position == state.worst.end() && state.worst.size() >= kWorstWaits) {
    Recycle(cpu, std::move(wait));
    return;
  }
  if (!wait.blame_complete) ++cpu.incomplete_worst;
  state.worst.insert(position, std::move(wait));
  if (state.worst.size() > kWorstWaits) {
    if (!state.worst.back().blame_complete) --cpu.incomplete_worst;
    Recycle(cpu, std::move(state.worst.back()));
    state.worst.pop_back();
  }
}

void SoftirqLatency::Recycle(CpuState& cpu, Wait wait) {
  constexpr size_t kSpareWaits = 4;
  if (cpu.spare.size() < kSpareWaits) cpu.spare.push_back(std::move(wait));
}

void SoftirqLatency::OnSegment(const CpuSegment& segment) {
  Attribute(Cpu(segment.frame.cpu), segment.start_ns, segment.end_ns, &segment.frame);
}

void SoftirqLatency::OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
  Attribute(Cpu(cpu), start_ns, end_ns, nullptr);
}

// Charges [start_ns, end_ns) of a CPU to `frame` (nullptr: unknown) in every wait it overlaps.
// Segments of a CPU arrive in time order, but during the tracker's warm-up only after the
// events that ended them; a wait therefore keeps collecting until the stream passes its entry.
void SoftirqLatency::Attribute(CpuState& cpu, TimestampNs start_ns, TimestampNs end_ns,
                               const ContextFrame* frame) {
  for (Wait& wait : cpu.pending) {
    wait.blame.Charge(std::max(start_ns, wait.raise_ns), end_ns, frame);
  }
  cpu.segments_until_ns = std::max(cpu.segments_until_ns, end_ns);
  if (cpu.incomplete_worst == 0) return;
  for (VecState& state : cpu.vecs) ChargeIncomplete(cpu, state.worst, start_ns, end_ns, frame);
  ChargeIncomplete(cpu, cpu.kept, start_ns, end_ns, frame);
}

void SoftirqLatency::ChargeIncomplete(CpuState& cpu, std::vector<Wait>& waits,
                                      TimestampNs start_ns, TimestampNs end_ns,
                                      const ContextFrame* frame) {
  for (Wait& wait : waits) {
    if (wait.blame_complete) continue;
    wait.blame.Charge(std::max(start_ns, wait.raise_ns), std::min(end_ns, wait.entry_ns), frame);
    if (cpu.segments_until_ns >= wait.entry_ns) {
      wait.blame_complete = true;
      --cpu.incomplete_worst;
    }
  }
}

std::vector<SoftirqLatencyRow> SoftirqLatency::Rows(const TraceContext& context) const {
  std::vector<SoftirqLatencyRow> rows;
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
    const CpuState& cpu_state = cpus_[cpu];
    for (size_t vec = 0; vec < cpu_state.vecs.size(); ++vec) {
      const VecState& state = cpu_state.vecs[vec];
      if (state.delays.count() == 0 && state.dropped_pairs == 0 &&
          state.entries_without_raise == 0) {
        continue;
      }
      SoftirqLatencyRow row;
      row.cpu = static_cast<int>(cpu);
      row.vec = static_cast<uint32_t>(vec);
      row.delay = state.delays.Stats();
      row.dropped_pairs = state.dropped_pairs;
      row.entries_without_raise = state.entries_without_raise;
      row.ran_in = state.ran_in;
      for (const Wait& wait : state.worst) {
        SoftirqWait out;
        out.raise_ns = wait.raise_ns;
        out.entry_ns = wait.entry_ns;
        out.delay_ns = wait.entry_ns - wait.raise_ns;
        out.ran_in = wait.site;
        out.unknown_ns = wait.blame.unknown_ns();
        out.blame = wait.blame.Items(context.strings);
        row.worst.push_back(std::move(out));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace napiscope::internal
