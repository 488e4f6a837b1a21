#include "napiscope/task_class.h"

#include <charconv>
#include <utility>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "napiscope/task_classifier.h"
#include "napiscope/task_table.h"

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
    case TaskClass::kSoftirqThread:
      return "softirq_thread";
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
  if (ParseNumberAfter(comm, "irq/", &value, &rest)) {
    if (!rest.empty() && rest.front() != '-') return false;
  } else if (!ParseNumberAfter(comm, "IRQ-", &value, &rest) || !rest.empty()) {
    return false;  // 2.6.2x-rt names its IRQ threads IRQ-<N>, nothing after the number
  }
  *irq = static_cast<int32_t>(value);
  return true;
}

bool ParseSoftirqThreadName(std::string_view comm, int* cpu, uint32_t* vectors) {
  // Per-vector threads of 2.6.x-rt use the kernel's lower-case vector names with '-' for '_'.
  static constexpr std::pair<std::string_view, uint32_t> kVectorWords[] = {
      {"high", 1u << kHi},         {"timer", 1u << kTimer},     {"net-tx", 1u << kNetTx},
      {"net-rx", 1u << kNetRx},    {"block", 1u << kBlock},     {"block-iopoll", 1u << kIrqPoll},
      {"irq-poll", 1u << kIrqPoll}, {"tasklet", 1u << kTasklet}, {"sched", 1u << kSched},
      {"hrtimer", 1u << kHrtimer}, {"rcu", 1u << kRcu}};
  std::string_view body;
  uint32_t served = 0;
  if (comm.substr(0, 5) == "sirq-" || comm.substr(0, 8) == "softirq-") {
    body = comm.substr(comm.find('-') + 1);
    size_t slash = body.rfind('/');
    if (slash == std::string_view::npos) {
      // Cut at 15 characters (TASK_COMM_LEN) before the CPU: the kind is still certain.
      if (comm.size() != 15) return false;
      for (const auto& [name, bits] : kVectorWords) {
        if (name.substr(0, body.size()) == body) served |= bits;
      }
      *cpu = -1;
      *vectors = served;
      return true;
    }
    std::string_view word = body.substr(0, slash);
    for (const auto& [name, bits] : kVectorWords) {
      if (word == name) served = bits;
    }
    body = body.substr(slash);
  } else if (comm.substr(0, 11) == "ktimersoftd") {
    body = comm.substr(11);  // timer softirqs of 3.x-4.x rt: TIMER and HRTIMER
    served = (1u << kTimer) | (1u << kHrtimer);
  } else if (comm.substr(0, 7) == "ktimers") {
    body = comm.substr(7);  // 6.x rt: TIMER and HRTIMER
    served = (1u << kTimer) | (1u << kHrtimer);
  } else {
    return false;
  }
  int64_t value = 0;
  std::string_view rest;
  if (!ParseNumberAfter(body, "/", &value, &rest) || !rest.empty()) return false;
  *cpu = static_cast<int>(value);
  *vectors = served;
  return true;
}

bool ParseKsoftirqdName(std::string_view comm, int* cpu) {
  int64_t value = 0;
  std::string_view rest;
  if (!ParseNumberAfter(comm, "ksoftirqd/", &value, &rest) || !rest.empty()) return false;
  *cpu = static_cast<int>(value);
  return true;
}

namespace {

// The class a name alone gives: a service thread's, else kOther.
TaskClass ClassOfName(std::string_view comm) {
  int32_t irq = 0;
  int cpu = 0;
  uint32_t vectors = 0;
  if (ParseIrqThreadName(comm, &irq)) return TaskClass::kIrqThread;
  if (ParseKsoftirqdName(comm, &cpu)) return TaskClass::kKsoftirqd;
  if (ParseSoftirqThreadName(comm, &cpu, &vectors)) return TaskClass::kSoftirqThread;
  if (comm.substr(0, 5) == "napi/") return TaskClass::kNapiKthread;
  return TaskClass::kOther;
}

// A plain name's class from the priority: RT or other.
TaskClass WithPriority(TaskClass by_name, int kernel_prio) {
  if (by_name != TaskClass::kOther) return by_name;
  return kernel_prio >= 0 && kernel_prio < 100 ? TaskClass::kRtTask : TaskClass::kOther;
}

// What the task table has seen a task with a plain name do overrides its name.
TaskClass WithBehaviour(const TaskTable* tasks, int32_t pid, TaskClass by_name) {
  if (by_name != TaskClass::kRtTask && by_name != TaskClass::kOther) return by_name;
  if (tasks == nullptr || !tasks->any_thread_by_behaviour()) return by_name;
  const TaskRecord* task = tasks->Find(pid);
  if (task == nullptr) return by_name;
  if (task->woken_as_thread_of_irq >= 0) return TaskClass::kIrqThread;
  if (task->served_softirq_vectors != 0 && !tasks->softirqs_at_irq_exit()) {
    return TaskClass::kSoftirqThread;
  }
  return by_name;
}

}  // namespace

TaskClass ClassifyTask(int32_t pid, std::string_view comm, int kernel_prio) {
  if (pid == 0) return TaskClass::kIdle;
  return WithPriority(ClassOfName(comm), kernel_prio);
}

TaskClass ClassifyTask(const TaskTable* tasks, int32_t pid, std::string_view comm,
                       int kernel_prio) {
  return WithBehaviour(tasks, pid, ClassifyTask(pid, comm, kernel_prio));
}

TaskClass TaskClassifier::Classify(const TaskTable* tasks, int32_t pid, StringId comm,
                                   const StringTable& strings, int kernel_prio) {
  if (pid == 0) return TaskClass::kIdle;
  if (comm >= by_name_.size()) by_name_.resize(comm + 1, 0);
  uint8_t& known = by_name_[comm];
  if (known == 0) known = 1 + static_cast<uint8_t>(ClassOfName(strings.Get(comm)));
  TaskClass by_name = static_cast<TaskClass>(known - 1);
  return WithBehaviour(tasks, pid, WithPriority(by_name, kernel_prio));
}

int32_t IrqOfThread(const TaskTable* tasks, int32_t pid, std::string_view comm) {
  int32_t irq = -1;
  if (ParseIrqThreadName(comm, &irq)) return irq;
  const TaskRecord* task = tasks != nullptr ? tasks->Find(pid) : nullptr;
  return task != nullptr ? task->woken_as_thread_of_irq : -1;
}

bool ServesSoftirqs(TaskClass task_class) {
  return task_class == TaskClass::kIrqThread || task_class == TaskClass::kKsoftirqd ||
         task_class == TaskClass::kNapiKthread || task_class == TaskClass::kSoftirqThread;
}

bool WakeLatencyWatches(TaskClass task_class, int kernel_prio) {
  return (kernel_prio >= 0 && kernel_prio < 100) || ServesSoftirqs(task_class);
}

bool WakeLatencyWatches(int32_t pid, std::string_view comm, int kernel_prio) {
  return WakeLatencyWatches(ClassifyTask(pid, comm, kernel_prio), kernel_prio);
}

}  // namespace napiscope
