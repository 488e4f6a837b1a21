// Softirq threads recognised by behaviour (docs/contexts.md): a task woken right after another
// context raised a vector, whose next run begins with that vector's softirq_entry, serves
// softirqs as a thread whatever its name (a vendor-renamed sirq-net-rx/N), so its softirqs
// count as run in a softirq thread, never at local_bh_enable in a task.
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/task_class.h"
#include "napiscope/task_table.h"
#include "napiscope/wait_blame.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kApp = 100, kRenamedSirq = 500, kWorker = 600, kTimerUser = 700;

// 2.6.x-rt style: IRQ 16's handler raises NET_RX and wakes "netrx-worker" (FIFO 50), which runs
// NET_RX as soon as it is switched in; woken by sched_wakeup (kernels before 4.3) or
// sched_waking.
void RenamedSoftirqThreadRuns(EventBuilder& b, TimestampNs at, bool waking) {
  b.IrqEntry(0, at, kApp, 16, "eth0").Raise(0, at + 5, kApp, kNetRx);
  if (waking) {
    b.Waking(0, at + 6, kApp, kRenamedSirq, 0);
  } else {
    b.Wakeup(0, at + 6, kApp, kRenamedSirq, 0);
  }
  b.IrqExit(0, at + 10, kApp, 16);
  b.Switch(0, at + 100, kApp, kStatePreempted, kRenamedSirq);
  b.SoftirqEntry(0, at + 110, kRenamedSirq, kNetRx).SoftirqExit(0, at + 200, kRenamedSirq, kNetRx);
  b.Switch(0, at + 210, kRenamedSirq, kStateInterruptible, kApp);
}

EventBuilder Scenario() {
  EventBuilder b(1);
  b.Task(kApp, "app").Task(kRenamedSirq, "netrx-worker", 49).Task(kWorker, "worker", 49);
  b.Task(kTimerUser, "timer-user", 49);
  b.Switch(0, 100, 0, kStatePreempted, kApp);
  RenamedSoftirqThreadRuns(b, 1000, false);
  RenamedSoftirqThreadRuns(b, 2000, true);
  // "worker" is woken right after a raise too, but its run begins with something else.
  b.Raise(0, 3000, kApp, kNetRx).Waking(0, 3001, kApp, kWorker, 0);
  b.Switch(0, 3100, kApp, kStatePreempted, kWorker);
  b.Other(0, 3105, kWorker, "sys_enter");
  b.SoftirqEntry(0, 3110, kWorker, kNetRx).SoftirqExit(0, 3200, kWorker, kNetRx);
  b.Switch(0, 3210, kWorker, kStateInterruptible, kApp);
  // "timer-user" is woken after a NET_RX raise and begins with TIMER: not the raised vector.
  b.Raise(0, 4000, kApp, kNetRx).Waking(0, 4001, kApp, kTimerUser, 0);
  b.Switch(0, 4100, kApp, kStatePreempted, kTimerUser);
  b.SoftirqEntry(0, 4110, kTimerUser, kTimer).SoftirqExit(0, 4150, kTimerUser, kTimer);
  b.SoftirqEntry(0, 4160, kTimerUser, kNetRx).SoftirqExit(0, 4200, kTimerUser, kNetRx);
  b.Switch(0, 4210, kTimerUser, kStateInterruptible, kApp);
  return b;
}

TEST(SoftirqThreadBehaviour, ATaskWokenByARaiseThatBeginsWithThatSoftirqIsASoftirqThread) {
  EventBuilder b = Scenario();
  AnalysisSession pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  const TaskTable& tasks = b.context().tasks;
  ASSERT_NE(tasks.Find(kRenamedSirq), nullptr);
  EXPECT_EQ(tasks.Find(kRenamedSirq)->served_softirq_vectors, 1u << kNetRx);
  EXPECT_EQ(tasks.Find(kWorker)->served_softirq_vectors, 0u);
  EXPECT_EQ(tasks.Find(kTimerUser)->served_softirq_vectors, 0u);
  EXPECT_EQ(ClassifyTask(&tasks, kRenamedSirq, "netrx-worker", 49), TaskClass::kSoftirqThread);
  EXPECT_EQ(ClassifyTask(&tasks, kWorker, "worker", 49), TaskClass::kRtTask);

  const SoftirqLatencyRow* net_rx = nullptr;
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    if (row.vec == kNetRx) net_rx = &row;
  }
  ASSERT_NE(net_rx, nullptr);
  // Both runs of the renamed thread, the first one included: it proved itself at its entry.
  EXPECT_EQ(net_rx->ran_in.at(SoftirqSite::kSoftirqThread), 2);
  EXPECT_EQ(net_rx->ran_in.at(SoftirqSite::kTaskBhEnable), 2);  // worker's and timer-user's

  const ThreadActivityRow* thread = nullptr;
  for (const ThreadActivityRow& row : report.ksoftirqd) {
    if (row.pid == kRenamedSirq) thread = &row;
  }
  ASSERT_NE(thread, nullptr);
  EXPECT_EQ(thread->task_class, TaskClass::kSoftirqThread);
  EXPECT_EQ(thread->activations, 1);  // the second: known as such a thread by its wakeup
}

// Only the event right after the raise on that CPU is the softirq thread's wakeup.
TEST(SoftirqThreadBehaviour, AWakeupAfterAnotherEventIsNoProof) {
  EventBuilder b(1);
  b.Task(kApp, "app").Task(kWorker, "worker", 49);
  b.Switch(0, 100, 0, kStatePreempted, kApp);
  b.Raise(0, 1000, kApp, kNetRx).Other(0, 1001, kApp, "sys_exit").Waking(0, 1002, kApp, kWorker, 0);
  b.Switch(0, 1100, kApp, kStatePreempted, kWorker);
  b.SoftirqEntry(0, 1110, kWorker, kNetRx).SoftirqExit(0, 1200, kWorker, kNetRx);
  AnalysisSession pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  pipeline.Finish(b.context());
  EXPECT_EQ(b.context().tasks.Find(kWorker)->served_softirq_vectors, 0u);
}

// Issue 63, item 1: on a kernel that runs softirqs at irq_exit (not PREEMPT_RT) the sequence
// is a coincidence, not a softirq thread. stress-ng-timer is woken from the tick that raised
// HRTIMER and runs the pending HRTIMER at its own local_bh_enable; a FIFO 60 iperf3 sender is
// woken right after a NET_RX raise and runs NET_RX at local_bh_enable. Neither is a softirq
// thread: ordinary and RT tasks, their softirqs at task_bh_enable.
TEST(SoftirqThreadBehaviour, NoSoftirqThreadByBehaviourWhereSoftirqsRunAtIrqExit) {
  constexpr int32_t kStress = 800, kSender = 900;
  EventBuilder b(1);
  b.Task(kApp, "app").Task(kStress, "stress-ng-timer", 120).Task(kSender, "iperf3", 39);
  b.Switch(0, 100, 0, kStatePreempted, kApp);
  for (TimestampNs tick : {1000, 5000, 9000}) {  // ticks whose TIMER runs at irq_exit
    b.VectorEntry(0, tick, kApp, "local_timer", 236).Raise(0, tick + 2, kApp, kTimer);
    b.VectorExit(0, tick + 5, kApp, "local_timer", 236);
    b.SoftirqEntry(0, tick + 6, kApp, kTimer).SoftirqExit(0, tick + 20, kApp, kTimer);
  }
  b.VectorEntry(0, 20000, kApp, "local_timer", 236).Raise(0, 20002, kApp, kHrtimer);
  b.Waking(0, 20003, kApp, kStress, 0).VectorExit(0, 20005, kApp, "local_timer", 236);
  b.Other(0, 20010, kApp, "sys_enter");
  b.Switch(0, 20100, kApp, kStatePreempted, kStress);
  b.SoftirqEntry(0, 20110, kStress, kHrtimer).SoftirqExit(0, 20150, kStress, kHrtimer);
  b.Switch(0, 20200, kStress, kStateInterruptible, kApp);
  b.Raise(0, 30000, kApp, kNetRx).Waking(0, 30001, kApp, kSender, 0);
  b.Switch(0, 30100, kApp, kStatePreempted, kSender);
  b.SoftirqEntry(0, 30110, kSender, kNetRx).SoftirqExit(0, 30200, kSender, kNetRx);
  b.Switch(0, 30210, kSender, kStateInterruptible, kApp);
  AnalysisPipeline pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  const TaskTable& tasks = b.context().tasks;
  EXPECT_TRUE(tasks.softirqs_at_irq_exit());
  EXPECT_EQ(ClassifyTask(&tasks, kStress, "stress-ng-timer", 120), TaskClass::kOther);
  EXPECT_EQ(ClassifyTask(&tasks, kSender, "iperf3", 39), TaskClass::kRtTask);
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    EXPECT_EQ(row.ran_in.count(SoftirqSite::kSoftirqThread), 0u) << SoftirqVectorName(row.vec);
  }
  for (const ThreadActivityRow& row : report.ksoftirqd) {
    EXPECT_NE(row.pid, kStress);
    EXPECT_NE(row.pid, kSender);
  }
}

// Wait blame keeps the class the tracker gave a task, so findings can tell softirq threads
// (which do the waiting work) from the RT tasks that starve it.
TEST(SoftirqThreadBehaviour, BlameKeepsTheTrackersClassOfATask) {
  StringTable strings;
  ContextFrame frame;
  frame.kind = ContextKind::kTask;
  frame.pid = kRenamedSirq;
  frame.prio = 49;
  frame.name = strings.Intern("netrx-worker");
  frame.task_class = TaskClass::kSoftirqThread;
  WaitBlame blame;
  blame.Charge(0, 100, &frame);
  std::vector<BlameItem> items = blame.Items(strings);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].task_class, TaskClass::kSoftirqThread);
  EXPECT_EQ(items[0].time_ns, 100);
}

}  // namespace
}  // namespace napiscope
