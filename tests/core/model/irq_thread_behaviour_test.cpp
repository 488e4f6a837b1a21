// IRQ threads recognised by behaviour (docs/contexts.md): a task that a hard IRQ's handler wakes
// as its thread (irq_handler_exit returned IRQ_WAKE_THREAD, then the task's sched_waking on that
// CPU) is that IRQ's thread whatever its name, so the softirqs it runs count as run in an IRQ
// thread, never at local_bh_enable in a task.
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/task_class.h"
#include "napiscope/task_table.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kApp = 100, kOddlyNamedThread = 500, kWorker = 600;

// IRQ 40's handler returns IRQ_WAKE_THREAD and wakes "mydev-rx" (FIFO 50), which raises and
// runs NET_RX; IRQ 41's handler returns handled and wakes "worker" (FIFO 50) directly, which
// raises and runs NET_RX too.
EventBuilder WokenThreads() {
  EventBuilder b(1);
  b.Task(kApp, "app").Task(kOddlyNamedThread, "mydev-rx", 49).Task(kWorker, "worker", 49);
  b.Switch(0, 100, 0, kStatePreempted, kApp);
  b.IrqEntry(0, 1000, kApp, 40, "mydev").IrqExit(0, 1010, kApp, 40, kIrqWakeThread);
  b.Waking(0, 1011, kApp, kOddlyNamedThread, 0);
  b.Switch(0, 1100, kApp, kStatePreempted, kOddlyNamedThread);
  b.Raise(0, 1200, kOddlyNamedThread, kNetRx).SoftirqEntry(0, 1300, kOddlyNamedThread, kNetRx);
  b.SoftirqExit(0, 1400, kOddlyNamedThread, kNetRx);
  b.Switch(0, 1500, kOddlyNamedThread, kStateInterruptible, kApp);
  b.IrqEntry(0, 2000, kApp, 41, "otherdev").IrqExit(0, 2010, kApp, 41);
  b.Waking(0, 2011, kApp, kWorker, 0);
  b.Switch(0, 2100, kApp, kStatePreempted, kWorker);
  b.Raise(0, 2200, kWorker, kNetRx).SoftirqEntry(0, 2300, kWorker, kNetRx);
  b.SoftirqExit(0, 2400, kWorker, kNetRx);
  b.Switch(0, 2500, kWorker, kStateInterruptible, kApp);
  return b;
}

TEST(IrqThreadBehaviour, AThreadItsHardIrqWokeIsThatIrqsThreadWhateverItsName) {
  EventBuilder b = WokenThreads();
  AnalysisSession pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  Report report = pipeline.Finish(b.context());
  const TaskTable& tasks = b.context().tasks;
  ASSERT_NE(tasks.Find(kOddlyNamedThread), nullptr);
  EXPECT_EQ(tasks.Find(kOddlyNamedThread)->woken_as_thread_of_irq, 40);
  EXPECT_EQ(tasks.Find(kWorker)->woken_as_thread_of_irq, -1);
  EXPECT_EQ(ClassifyTask(&tasks, kOddlyNamedThread, "mydev-rx", 49), TaskClass::kIrqThread);
  EXPECT_EQ(ClassifyTask(&tasks, kWorker, "worker", 49), TaskClass::kRtTask);
  EXPECT_EQ(IrqOfThread(&tasks, kOddlyNamedThread, "mydev-rx"), 40);

  ASSERT_EQ(report.softirq_latency.size(), 1u);
  const std::map<SoftirqSite, int64_t>& ran_in = report.softirq_latency[0].ran_in;
  EXPECT_EQ(ran_in.at(SoftirqSite::kIrqThread), 1);  // mydev-rx's
  EXPECT_EQ(ran_in.at(SoftirqSite::kTaskBhEnable), 1);  // worker's: a task, not an IRQ thread
  ASSERT_EQ(report.irq_threads.size(), 1u);
  EXPECT_EQ(report.irq_threads[0].pid, kOddlyNamedThread);
  EXPECT_EQ(report.irq_threads[0].irq, 40);
  EXPECT_EQ(report.irq_threads[0].activations, 1);
}

// Only the event right after the handler's exit on that CPU is its thread's wakeup.
TEST(IrqThreadBehaviour, AWakingAfterAnotherEventIsNotTheThreadsWakeup) {
  EventBuilder b(1);
  b.Task(kApp, "app").Task(kWorker, "worker", 49);
  b.Switch(0, 100, 0, kStatePreempted, kApp);
  b.IrqEntry(0, 1000, kApp, 40, "mydev").IrqExit(0, 1010, kApp, 40, kIrqWakeThread);
  b.Raise(0, 1011, kApp, kNetRx);
  b.Waking(0, 1012, kApp, kWorker, 0);
  AnalysisSession pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  pipeline.Finish(b.context());
  EXPECT_EQ(b.context().tasks.Find(kWorker)->woken_as_thread_of_irq, -1);
}

}  // namespace
}  // namespace napiscope
