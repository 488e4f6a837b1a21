#include "napiscope/report.h"

namespace napiscope {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "";
}

std::vector<int32_t> TasksNamed(const Finding& finding) {
  std::vector<int32_t> tasks;
  if (finding.pid >= 0) tasks.push_back(finding.pid);
  for (int32_t pid : finding.other_pids) {
    if (pid >= 0) tasks.push_back(pid);
  }
  return tasks;
}

int64_t CpuTimeRow::AccountedNs() const {
  int64_t total = idle_ns + hardirq_ns + irq_thread_ns + ksoftirqd_ns + napi_kthread_ns +
                  rt_task_ns + other_task_ns;
  for (int64_t ns : softirq_ns) total += ns;
  return total;
}

bool AnalysisWindow::restricted() const {
  return from_ns != std::numeric_limits<TimestampNs>::min() ||
         to_ns != std::numeric_limits<TimestampNs>::max();
}

const AnalysisAvailability* Report::Availability(std::string_view id) const {
  for (const AnalysisAvailability& availability : trace.analyses) {
    if (availability.id == id) return &availability;
  }
  return nullptr;
}

}  // namespace napiscope
