// TaskTable: names over time, the one name of pid 0, and the recent-observation cache.
#include <gtest/gtest.h>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "napiscope/task_table.h"

namespace napiscope {
namespace {

Event Switch(TimestampNs ts_ns, int32_t prev, StringId prev_comm, int16_t prev_prio, int32_t next,
             StringId next_comm, int16_t next_prio) {
  Event event;
  event.ts_ns = ts_ns;
  event.kind = EventKind::kSchedSwitch;
  event.pid = prev;
  event.sched_switch = {prev, next, prev_prio, next_prio, 0, prev_comm, next_comm};
  return event;
}

TEST(TaskTable, TheIdleTaskKeepsItsFirstNameWhateverCpuItRunsOn) {
  StringTable strings;
  StringId swapper0 = strings.Intern("swapper/0");
  StringId swapper1 = strings.Intern("swapper/1");
  StringId iperf = strings.Intern("iperf3");
  TaskTable tasks;
  for (int i = 0; i < 1000; ++i) {  // idle alternating CPUs: no history grows
    tasks.ObserveEvent(Switch(i * 10, 0, i % 2 ? swapper1 : swapper0, 120, 1500, iperf, 120));
  }
  ASSERT_NE(tasks.Find(0), nullptr);
  EXPECT_EQ(tasks.Find(0)->comms.size(), 1u);
  EXPECT_EQ(tasks.CommAt(0, 5'000), swapper0);
  EXPECT_EQ(tasks.Find(1500)->comms.size(), 1u);
}

TEST(TaskTable, ARepeatedObservationIsCachedButAChangeIsNot) {
  StringTable strings;
  StringId swapper = strings.Intern("swapper/0");
  StringId iperf = strings.Intern("iperf3");
  StringId netperf = strings.Intern("netperf");
  TaskTable tasks;
  tasks.ObserveEvent(Switch(1'000, 0, swapper, 120, 1500, iperf, 120));
  tasks.ObserveEvent(Switch(2'000, 0, swapper, 120, 1500, iperf, 120));   // cached
  tasks.ObserveEvent(Switch(3'000, 0, swapper, 120, 1500, iperf, 98));    // new priority
  tasks.ObserveEvent(Switch(4'000, 0, swapper, 120, 1500, netperf, 98));  // new name
  // Another pid in the same cache slot (pid modulo 256) must not hide 1500's next change.
  tasks.ObserveEvent(Switch(5'000, 0, swapper, 120, 1500 + 256, iperf, 120));
  tasks.ObserveEvent(Switch(6'000, 0, swapper, 120, 1500, iperf, 98));
  const TaskRecord* task = tasks.Find(1500);
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->last_prio, 98);
  ASSERT_EQ(task->comms.size(), 3u);
  EXPECT_EQ(tasks.CommAt(1500, 3'500), iperf);
  EXPECT_EQ(tasks.CommAt(1500, 4'500), netperf);
  EXPECT_EQ(tasks.CommAt(1500, 6'500), iperf);
  // ObserveComm outside events also reaches the table after a cached observation.
  tasks.ObserveComm(1500, netperf, 7'000);
  tasks.ObserveEvent(Switch(8'000, 0, swapper, 120, 1500, netperf, 98));
  EXPECT_EQ(tasks.CommAt(1500, 8'500), netperf);
  EXPECT_EQ(tasks.Find(1500)->comms.size(), 4u);
}

// Saved cmdlines hold the name at the end of the recording: `chrt` that exec'd `taskset` is
// `taskset` there, but before its first switch-out the task was `chrt`.
TEST(TaskTable, SavedCmdlinesDoNotNameTheTaskBeforeItsFirstEventName) {
  StringTable strings;
  StringId taskset = strings.Intern("taskset");
  StringId chrt = strings.Intern("chrt");
  TaskTable tasks;
  tasks.SetInitialComm(700, taskset);
  EXPECT_EQ(tasks.CommAt(700, 50), taskset);  // no event named it yet: cmdlines are all there is
  tasks.ObserveComm(700, chrt, 100);
  tasks.ObserveComm(700, taskset, 200);
  EXPECT_EQ(tasks.CommAt(700, 50), chrt);
  EXPECT_EQ(tasks.CommAt(700, 150), chrt);
  EXPECT_EQ(tasks.CommAt(700, 250), taskset);
}

}  // namespace
}  // namespace napiscope
