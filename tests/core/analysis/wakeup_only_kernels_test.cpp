// Kernels before 4.3 have no sched_waking: their sched_wakeup marks each wake, so activations,
// wake-to-run waits and blocked-ksoftirqd chains are measured from it (TaskTable::IsWake). On
// newer kernels a sched_wakeup that follows its sched_waking is not a second wake.
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/analysis_requirements.h"
#include "napiscope/task_table.h"
#include "napiscope/trace_summary.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kApp = 100, kNapi = 300;

// Twice: IRQ 40 wakes "napi/eth0-1" (FIFO 50), which is switched in 100 ns after its wakeup
// (then 200 ns) and sleeps again; with `waking`, each wakeup is also traced as sched_waking.
EventBuilder NapiThreadWoken(bool waking) {
  EventBuilder b(1);
  b.Task(kApp, "app").Task(kNapi, "napi/eth0-1", 49);
  b.Switch(0, 100, 0, kStatePreempted, kApp);
  TimestampNs at = 1000;
  for (TimestampNs delay : {100, 200}) {
    b.IrqEntry(0, at, kApp, 40, "eth0");
    if (waking) b.Waking(0, at + 5, kApp, kNapi, 0);
    b.Wakeup(0, at + 10, kApp, kNapi, 0).IrqExit(0, at + 20, kApp, 40);
    TimestampNs woken = waking ? at + 5 : at + 10;
    b.Switch(0, woken + delay, kApp, kStatePreempted, kNapi);
    b.Switch(0, woken + delay + 50, kNapi, kStateInterruptible, kApp);
    at += 1000;
  }
  return b;
}

Report Analyze(EventBuilder& b) {
  AnalysisPipeline pipeline{AnalysisOptions{}};
  b.Play(pipeline);
  return pipeline.Finish(b.context());
}

void ExpectTwoWakesOf100And200Ns(const Report& report) {
  ASSERT_EQ(report.napi_threads.size(), 1u);
  EXPECT_EQ(report.napi_threads[0].activations, 2);
  ASSERT_EQ(report.rt_wake_latency.size(), 1u);
  EXPECT_EQ(report.rt_wake_latency[0].pid, kNapi);
  EXPECT_EQ(report.rt_wake_latency[0].latency.count, 2);
  EXPECT_EQ(report.rt_wake_latency[0].latency.max_ns, 200);
}

TEST(WakeupOnlyKernels, SchedWakeupMarksTheWakesWhenNoSchedWakingIsRecorded) {
  EventBuilder b = NapiThreadWoken(false);
  ExpectTwoWakesOf100And200Ns(Analyze(b));
}

TEST(WakeupOnlyKernels, ASchedWakeupAfterItsSchedWakingIsNotASecondWake) {
  EventBuilder b = NapiThreadWoken(true);
  ExpectTwoWakesOf100And200Ns(Analyze(b));
}

TEST(WakeupOnlyKernels, EitherWakeupEventMeetsTheAnalysesThatNeedOne) {
  std::vector<AnalysisAvailability> with_wakeup =
      CheckAnalyses({{"sched_switch", 4, {}}, {"sched_wakeup", 2, {}}}, {});
  std::vector<AnalysisAvailability> with_neither = CheckAnalyses({{"sched_switch", 4, {}}}, {});
  auto find = [](const std::vector<AnalysisAvailability>& all, std::string_view id) {
    for (const AnalysisAvailability& a : all) {
      if (a.id == id) return a;
    }
    return AnalysisAvailability{};
  };
  EXPECT_TRUE(find(with_wakeup, "rt_wake_latency").available);
  AnalysisAvailability missing = find(with_neither, "rt_wake_latency");
  EXPECT_FALSE(missing.available);
  ASSERT_EQ(missing.missing_required.size(), 1u);
  EXPECT_EQ(missing.missing_required[0], "sched:sched_waking or sched:sched_wakeup");
  EXPECT_EQ(missing.note, "needs sched:sched_waking or sched:sched_wakeup: not recorded");
  // With the event's format in the file it was known, and perhaps enabled: napiscope record
  // keeps only the enabled events' formats, and a quiet NIC polls nothing.
  AnalysisAvailability known =
      find(CheckAnalyses({{"softirq_raise", 4, {}}}, {"napi:napi_poll"}), "napi");
  EXPECT_EQ(known.note,
            "needs napi:napi_poll: the kernel had the event but none was recorded "
            "(not enabled, or it never happened)");
}

TEST(WakeupOnlyKernels, TheTaskTableSaysWhichEventIsTheWake) {
  TaskTable tasks;
  Event wakeup{};
  wakeup.kind = EventKind::kSchedWakeup;
  wakeup.wake.pid = kNapi;
  EXPECT_TRUE(tasks.IsWake(wakeup));
  Event waking = wakeup;
  waking.kind = EventKind::kSchedWaking;
  tasks.ObserveEvent(waking);
  EXPECT_TRUE(tasks.IsWake(waking));
  EXPECT_FALSE(tasks.IsWake(wakeup));
}

}  // namespace
}  // namespace napiscope
