#include "napiscope/task_class.h"

#include <charconv>

namespace napiscope {
namespace {

bool ParseNumberAfter(std::string_view comm, std::string_view prefix, int64_t* value,
                      std::string_view* rest) {
  if (comm.substr(0, prefix.size()) != prefix) return false;
  const char* begin = comm.data() + prefix.size();
  const char* end = comm.data() + comm.size();
  auto [ptr, error] = std::from_chars(begin, end, *value);
  if (error != std::errc() || ptr == begin) return false;
  *rest = std::string_view(ptr, end - ptr);
  return true;
}

}  // namespace

std::string_view TaskClassName(TaskClass task_class) {
  switch (task_class) {
    case TaskClass::kIdle:
      return "idle";
    case TaskClass::kIrqThread:
      return "irq_thread";
    case TaskClass::kKsoftirqd:
      return "ksoftirqd";
    case TaskClass::kNapiKthread:
      return "napi_kthread";
    case TaskClass::kRtTask:
      return "rt_task";
    case TaskClass::kOther:
      return "other";
  }
  return "other";
}

bool ParseIrqThreadName(std::string_view comm, int32_t* irq) {
  int64_t value = 0;
  std::string_view rest;
  if (!ParseNumberAfter(comm, "irq/", &value, &rest)) return false;
  if (!rest.empty() && rest.front() != '-') return false;
  *irq = static_cast<int32_t>(value);
  return true;
}

bool ParseKsoftirqdName(std::string_view comm, int* cpu) {
  int64_t value = 0;
  std::string_view rest;
  if (!ParseNumberAfter(comm, "ksoftirqd/", &value, &rest) || !rest.empty()) return false;
  *cpu = static_cast<int>(value);
  return true;
}

TaskClass ClassifyTask(int32_t pid, std::string_view comm, int kernel_prio) {
  if (pid == 0) return TaskClass::kIdle;
  int32_t irq = 0;
  int cpu = 0;
  if (ParseIrqThreadName(comm, &irq)) return TaskClass::kIrqThread;
  if (ParseKsoftirqdName(comm, &cpu)) return TaskClass::kKsoftirqd;
  if (comm.substr(0, 5) == "napi/") return TaskClass::kNapiKthread;
  if (kernel_prio >= 0 && kernel_prio < 100) return TaskClass::kRtTask;
  return TaskClass::kOther;
}

bool ServesSoftirqs(TaskClass task_class) {
  return task_class == TaskClass::kIrqThread || task_class == TaskClass::kKsoftirqd ||
         task_class == TaskClass::kNapiKthread;
}

bool WakeLatencyWatches(int32_t pid, std::string_view comm, int kernel_prio) {
  return (kernel_prio >= 0 && kernel_prio < 100) ||
         ServesSoftirqs(ClassifyTask(pid, comm, kernel_prio));
}

}  // namespace napiscope
