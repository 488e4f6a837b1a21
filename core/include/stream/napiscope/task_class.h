// What kind of kernel or user thread a task is, from its comm, pid and priority.
#pragma once

#include <cstdint>
#include <string_view>

namespace napiscope {

class TaskTable;

/// Task kinds that matter for interrupt and softirq diagnosis.
enum class TaskClass : uint8_t {
  kIdle,         ///< pid 0, swapper/N
  kIrqThread,    ///< irq/<N>-<name> (2.6.3x+) or IRQ-<N> (2.6.2x-rt): a threaded IRQ handler
  kKsoftirqd,    ///< ksoftirqd/<cpu>
  kNapiKthread,  ///< napi/<dev>-<id>: threaded NAPI
  kRtTask,       ///< any other task with an RT priority (kernel prio < 100)
  kOther,
  kSoftirqThread,  ///< RT softirq thread: sirq-<vec>/N, softirq-<vec>/N, ktimersoftd/N, ktimers/N
};

/// Short stable name of a class ("irq_thread", "ksoftirqd", ...).
std::string_view TaskClassName(TaskClass task_class);

/// True for the threads that run softirq or NAPI work: IRQ threads, ksoftirqd, RT softirq
/// threads, NAPI kthreads.
bool ServesSoftirqs(TaskClass task_class);

/// True for the tasks whose wake-to-run waits the wake-latency analysis measures: an RT
/// priority (kernel prio below 100), or a thread that serves softirqs.
bool WakeLatencyWatches(int32_t pid, std::string_view comm, int kernel_prio);
/// WakeLatencyWatches for a task ClassifyTask(pid, comm, kernel_prio) gives `task_class`.
bool WakeLatencyWatches(TaskClass task_class, int kernel_prio);

/// Classifies a task by its name; `kernel_prio` < 0 means unknown.
TaskClass ClassifyTask(int32_t pid, std::string_view comm, int kernel_prio);

/// Classifies a task by its name and by its behaviour so far in `tasks` (may be null): a task
/// a hard IRQ woke as its thread is an IRQ thread, one seen serving softirqs as a thread is a
/// softirq thread, whatever its name (docs/contexts.md).
TaskClass ClassifyTask(const TaskTable* tasks, int32_t pid, std::string_view comm,
                       int kernel_prio);

/// The IRQ an IRQ thread serves: from its name, else the IRQ that woke it as its thread in
/// `tasks` (may be null); -1 when neither says.
int32_t IrqOfThread(const TaskTable* tasks, int32_t pid, std::string_view comm);

/// For "irq/354-4848400" (or "IRQ-354" of 2.6.2x-rt) sets `*irq` to 354; false otherwise.
bool ParseIrqThreadName(std::string_view comm, int32_t* irq);

/// For "ksoftirqd/3" sets `*cpu` to 3; false for other names.
bool ParseKsoftirqdName(std::string_view comm, int* cpu);

/// For an RT softirq thread ("sirq-net-rx/0", "softirq-timer/1", "ktimersoftd/2",
/// "ktimers/3") sets `*cpu` (-1 when the name was cut before it) and `*vectors` (bit =
/// 1 << vec, the vectors it serves; 0 when the name does not say); false for other names.
bool ParseSoftirqThreadName(std::string_view comm, int* cpu, uint32_t* vectors);

}  // namespace napiscope
