#include "napiscope/phrasing.h"

#include <vector>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/napi_rt_rows.h"

namespace napiscope {

std::string FormatPriority(int kernel_prio) {
  if (kernel_prio < 0) return "";
  if (kernel_prio < 100) return fmt::format("RT {}", RtPriorityOf(kernel_prio));
  int nice = kernel_prio - 120;
  return nice == 0 ? "" : fmt::format("nice {}", nice);
}

std::string DescribeBlameHolder(const BlameItem& item) {
  switch (item.kind) {
    case ContextKind::kHardirq:
      // Inferred from common_flags: no number or handler is known.
      if (!item.irq.known()) return std::string(kUntracedIrqName);
      return fmt::format("{} {} ({})", InterruptKindName(item.irq.x86_vector, "hard IRQ"),
                         item.name, item.irq.number);
    case ContextKind::kSoftirq:
      return fmt::format("softirq {}", VectorLabel(item.vec));
    case ContextKind::kTask:
    case ContextKind::kNapiPoll:
      break;
  }
  if (item.pid == 0) return "idle";
  return DescribeTask(item.pid, item.name, item.prio);
}

std::string Counted(int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

namespace {

// napiscope's own threads (`record` and `live` recording the trace) are named "napiscope":
// their time is the recording's cost, not the load's.
bool IsRecorder(std::string_view comm) { return comm == "napiscope"; }

}  // namespace

// Marks napiscope's own threads: "napiscope (pid 5977, nice 10, the recorder)".
std::string DescribeTask(int32_t pid, const std::string& comm, int kernel_prio) {
  std::string prio = FormatPriority(kernel_prio);
  std::string name = comm.empty() ? std::string("?") : comm;
  // napiscope recording the trace shows up in it: said, so nobody chases it.
  std::string recorder = IsRecorder(comm) ? ", the recorder" : "";
  if (prio.empty()) return fmt::format("{} (pid {}{})", name, pid, recorder);
  return fmt::format("{} (pid {}, {}{})", name, pid, prio, recorder);
}

std::string VectorLabel(uint32_t vec) {
  if (vec < kSoftirqVectorCount) return std::string(SoftirqVectorName(vec));
  return fmt::format("vec {}", vec);
}

std::string_view WakeBlameRoleWords(std::string_view role) {
  if (role == "lower_prio") return "a lower-priority task that could not be preempted";
  if (role == "higher_prio") return "a task of the same or a higher priority";
  if (role == "napi_poll") return "NAPI polling";
  if (role == "task") return "a task of unknown priority";
  return "";  // hardirq, softirq and idle: the holder's name says it
}

std::string DescribeWakeHolder(const BlameItem& item, int64_t total_ns, int16_t woken_prio) {
  std::vector<std::string> notes;
  if (total_ns > 0) {
    notes.push_back(fmt::format("{:.0f}%", 100.0 * static_cast<double>(item.time_ns) / total_ns));
  }
  std::string_view role = WakeBlameRoleWords(WakeBlameRole(item, woken_prio));
  if (!role.empty()) notes.push_back(std::string(role));
  std::string text = DescribeBlameHolder(item) + " " + FormatDuration(item.time_ns);
  return notes.empty() ? text : fmt::format("{} ({})", text, fmt::join(notes, ", "));
}

}  // namespace napiscope
