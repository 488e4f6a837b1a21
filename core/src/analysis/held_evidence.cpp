#include "analysis/held_evidence.h"

namespace napiscope::internal {

nlohmann::json HeldByTask(int cpu, TimestampNs from_ns, TimestampNs to_ns, int32_t pid,
                          int64_t time_ns) {
  return {{"cpu", cpu}, {"from_ns", from_ns}, {"to_ns", to_ns},
          {"kind", "task"}, {"pid", pid},     {"time_ns", time_ns}};
}

nlohmann::json HeldBySoftirq(int cpu, TimestampNs from_ns, TimestampNs to_ns, uint32_t vec,
                             int64_t time_ns) {
  return {{"cpu", cpu}, {"from_ns", from_ns}, {"to_ns", to_ns},
          {"kind", "softirq"}, {"vec", vec},  {"time_ns", time_ns}};
}

nlohmann::json HeldByBlameItem(int cpu, TimestampNs from_ns, TimestampNs to_ns,
                               const BlameItem& item) {
  switch (item.kind) {
    case ContextKind::kTask:
      return HeldByTask(cpu, from_ns, to_ns, item.pid, item.time_ns);
    case ContextKind::kSoftirq:
      return HeldBySoftirq(cpu, from_ns, to_ns, item.vec, item.time_ns);
    case ContextKind::kHardirq:
      return {{"cpu", cpu},         {"from_ns", from_ns},
              {"to_ns", to_ns},     {"kind", "hardirq"},
              {"irq", item.irq.number}, {"x86_vector", item.irq.x86_vector},
              {"time_ns", item.time_ns}};
    default:
      return nullptr;
  }
}

}  // namespace napiscope::internal
