#include "analysis/cpu_silence.h"

#include <algorithm>

namespace napiscope::internal {

void CpuSilence::OnEvent(const Event& event) {
  if (event.cpu >= cpus_.size()) cpus_.resize(event.cpu + 1);
  CpuState& cpu = cpus_[event.cpu];
  if (event.kind == EventKind::kMissedEvents) {
    cpu.last_ns = -1;
    return;
  }
  if (event.kind == EventKind::kIrqVectorEntry) cpu.vectors = true;
  if (cpu.last_ns >= 0 && event.ts_ns - cpu.last_ns >= kMinSilentNs &&
      cpu.stretches.size() < kMaxStretches) {
    cpu.stretches.push_back({cpu.last_ns, event.ts_ns});
  }
  cpu.last_ns = std::max(cpu.last_ns, event.ts_ns);
}

int64_t CpuSilence::LongestWithin(int cpu, TimestampNs from_ns, TimestampNs to_ns) const {
  if (cpu < 0 || static_cast<size_t>(cpu) >= cpus_.size()) return 0;
  const std::vector<Stretch>& stretches = cpus_[static_cast<size_t>(cpu)].stretches;
  auto it = std::lower_bound(stretches.begin(), stretches.end(), from_ns,
                             [](const Stretch& s, TimestampNs ts) { return s.to_ns <= ts; });
  int64_t longest = 0;
  for (; it != stretches.end() && it->from_ns < to_ns; ++it) {
    longest = std::max(longest, std::min(to_ns, it->to_ns) - std::max(from_ns, it->from_ns));
  }
  return longest;
}

bool CpuSilence::RecordedVectors(int cpu) const {
  return cpu >= 0 && static_cast<size_t>(cpu) < cpus_.size() &&
         cpus_[static_cast<size_t>(cpu)].vectors;
}

}  // namespace napiscope::internal
