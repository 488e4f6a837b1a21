// TaskClassifier: the class ClassifyTask gives, with each name worked out once.
#include <gtest/gtest.h>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "napiscope/task_classifier.h"
#include "napiscope/task_table.h"

namespace napiscope {
namespace {

TEST(TaskClassifier, GivesWhatClassifyTaskGivesForEveryNamePidAndPriority) {
  StringTable strings;
  TaskTable tasks;
  TaskClassifier classifier;
  const char* names[] = {"irq/354-4848400", "IRQ-19",    "ksoftirqd/3",
                         "sirq-net-rx/0",   "ktimers/1", "napi/eth0-8193",
                         "iperf3",          "swapper/0", ""};
  for (int round = 0; round < 2; ++round) {  // the second round reads the remembered names
    for (const char* name : names) {
      StringId comm = strings.Intern(name);
      for (int32_t pid : {0, 1, 812}) {
        for (int prio : {-1, 0, 49, 99, 100, 120}) {
          EXPECT_EQ(classifier.Classify(&tasks, pid, comm, strings, prio),
                    ClassifyTask(&tasks, pid, name, prio))
              << name << " pid " << pid << " prio " << prio;
        }
      }
    }
  }
  EXPECT_EQ(classifier.Classify(nullptr, 812, strings.Intern("iperf3"), strings, 49),
            TaskClass::kRtTask);
}

TEST(TaskClassifier, WhatATaskWasSeenDoingOverridesTheClassItsNameGave) {
  StringTable strings;
  TaskTable tasks;
  TaskClassifier classifier;
  StringId worker = strings.Intern("worker");
  EXPECT_EQ(classifier.Classify(&tasks, 700, worker, strings, 120), TaskClass::kOther);
  // IRQ 30's handler asks for its thread (ret 2) and the next event wakes pid 700.
  Event exit;
  exit.kind = EventKind::kIrqHandlerExit;
  exit.irq = {30, 2, 0};
  tasks.ObserveEvent(exit);
  Event waking;
  waking.ts_ns = 10;
  waking.kind = EventKind::kSchedWaking;
  waking.wake = {700, 120, 0, worker};
  tasks.ObserveEvent(waking);
  EXPECT_EQ(ClassifyTask(&tasks, 700, "worker", 120), TaskClass::kIrqThread);
  EXPECT_EQ(classifier.Classify(&tasks, 700, worker, strings, 120), TaskClass::kIrqThread);
  EXPECT_EQ(classifier.Classify(&tasks, 701, worker, strings, 120), TaskClass::kOther);
}

}  // namespace
}  // namespace napiscope
