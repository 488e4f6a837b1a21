// What held a CPU while something waited for it.
#pragma once

#include <cstdint>
#include <string>

#include "napiscope/contexts.h"

namespace napiscope {

/// What held a CPU for part of a wait (a softirq's, or a woken thread's).
struct BlameItem {
  ContextKind kind = ContextKind::kTask;  ///< kTask, kHardirq or kSoftirq
  int32_t pid = 0;                        ///< kTask: the task
  int16_t prio = -1;                      ///< kTask: kernel priority (lowest seen), -1 unknown
  TaskClass task_class = TaskClass::kOther;  ///< kTask: its class, by name and behaviour
  InterruptId irq;                           ///< kHardirq: the device IRQ or x86 vector
  uint32_t vec = 0;                       ///< kSoftirq: the vector
  std::string name;                       ///< comm, IRQ handler / vector name, or vector name
  int64_t time_ns = 0;                    ///< time it held the CPU inside the wait
};

}  // namespace napiscope
