// What kind of kernel or user thread a task is, from its comm, pid and priority.
#pragma once

#include <cstdint>
#include <string_view>

namespace napiscope {

/// Task kinds that matter for interrupt and softirq diagnosis.
enum class TaskClass : uint8_t {
  kIdle,         ///< pid 0, swapper/N
  kIrqThread,    ///< irq/<N>-<name>: a forced-threaded or threaded IRQ handler
  kKsoftirqd,    ///< ksoftirqd/<cpu>
  kNapiKthread,  ///< napi/<dev>-<id>: threaded NAPI
  kRtTask,       ///< any other task with an RT priority (kernel prio < 100)
  kOther,
};

/// Short stable name of a class ("irq_thread", "ksoftirqd", ...).
std::string_view TaskClassName(TaskClass task_class);

/// True for the threads that run softirq or NAPI work: IRQ threads, ksoftirqd, NAPI kthreads.
bool ServesSoftirqs(TaskClass task_class);

/// True for the tasks whose wake-to-run waits the wake-latency analysis measures: an RT
/// priority (kernel prio below 100), or a thread that serves softirqs.
bool WakeLatencyWatches(int32_t pid, std::string_view comm, int kernel_prio);

/// Classifies a task; `kernel_prio` < 0 means unknown.
TaskClass ClassifyTask(int32_t pid, std::string_view comm, int kernel_prio);

/// For "irq/354-4848400" sets `*irq` to 354; false for other names.
bool ParseIrqThreadName(std::string_view comm, int32_t* irq);

/// For "ksoftirqd/3" sets `*cpu` to 3; false for other names.
bool ParseKsoftirqdName(std::string_view comm, int* cpu);

}  // namespace napiscope
