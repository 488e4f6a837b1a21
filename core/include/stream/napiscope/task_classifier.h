// ClassifyTask for the hot paths: what a name says is worked out once per interned name.
#pragma once

#include <cstdint>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/task_class.h"

namespace napiscope {

class StringTable;

/// Classifies tasks as ClassifyTask(tasks, pid, comm, prio) does, remembering the class each
/// interned comm's name gives, so a switch does not parse "irq/", "ksoftirqd/", ... again.
class TaskClassifier {
 public:
  /// ClassifyTask(tasks, pid, strings.Get(comm), kernel_prio); `tasks` may be null.
  TaskClass Classify(const TaskTable* tasks, int32_t pid, StringId comm, const StringTable& strings,
                     int kernel_prio);

 private:
  std::vector<uint8_t> by_name_;  // by StringId: 0 not worked out yet, else 1 + its class
};

}  // namespace napiscope
