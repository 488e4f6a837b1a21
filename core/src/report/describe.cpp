#include "report/describe.h"

#include <fmt/format.h>

namespace napiscope::internal {

std::string FormatPriority(int kernel_prio) {
  if (kernel_prio < 0) return "";
  if (kernel_prio < 100) return fmt::format("RT {}", RtPriorityOf(kernel_prio));
  int nice = kernel_prio - 120;
  return nice == 0 ? "" : fmt::format("nice {}", nice);
}

std::string DescribeHolder(const BlameItem& item) {
  switch (item.kind) {
    case ContextKind::kHardirq:
      return fmt::format("hard IRQ {} ({})", item.name, item.irq);
    case ContextKind::kSoftirq:
      return fmt::format("softirq {}", VectorLabel(item.vec));
    case ContextKind::kTask:
    case ContextKind::kNapiPoll:
      break;
  }
  if (item.pid == 0) return "idle";
  return DescribeTask(item.pid, item.name, item.prio);
}

std::string DescribeTask(int32_t pid, const std::string& comm, int kernel_prio) {
  std::string prio = FormatPriority(kernel_prio);
  std::string name = comm.empty() ? std::string("?") : comm;
  if (prio.empty()) return fmt::format("{} (pid {})", name, pid);
  return fmt::format("{} (pid {}, {})", name, pid, prio);
}

std::string VectorLabel(uint32_t vec) {
  if (vec < kSoftirqVectorCount) return std::string(SoftirqVectorName(vec));
  return fmt::format("vec {}", vec);
}

}  // namespace napiscope::internal
