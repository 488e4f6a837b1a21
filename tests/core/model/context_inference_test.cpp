// What the context tracker infers from common_flags and from names: untraced hard IRQs, the
// IRQ-exit tail, per-CPU softirq frames, idle names, NAPI polls in softirqs that
// began before the trace, and task names at the moment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/contexts.h"
#include "support/event_builder.h"

namespace napiscope {
namespace {

using ::napiscope::testing::EventBuilder;

constexpr int32_t kIperf = 100;
constexpr int32_t kRtTask = 300;
constexpr uint8_t kHardirqFlags = kIrqsOff | kHardirq;  // "d.h"
constexpr uint8_t kSoftirqFlags = kSoftirq;             // "..s"

class Recorder : public ContextListener {
 public:
  void OnSegment(const CpuSegment& segment) override { segments.push_back(segment); }
  void OnInterval(const ContextInterval& interval) override { intervals.push_back(interval); }
  const ContextInterval* Find(ContextKind kind, uint16_t cpu = 0) const {
    for (const ContextInterval& i : intervals) {
      if (i.frame.kind == kind && i.frame.cpu == cpu) return &i;
    }
    return nullptr;
  }
  std::vector<CpuSegment> segments;
  std::vector<ContextInterval> intervals;
};

// Plays `b` into a tracker; returns the sites of softirq entries in order.
std::vector<SoftirqSite> SitesOf(EventBuilder& b, Recorder* recorder = nullptr) {
  ContextTracker tracker;
  Recorder local;
  tracker.AddListener(recorder ? recorder : &local);
  std::vector<SoftirqSite> sites;
  struct Probe : EventSink {
    const ContextTracker* tracker;
    std::vector<SoftirqSite>* sites;
    void OnEvent(const Event& e) override {
      if (e.kind == EventKind::kSoftirqEntry) sites->push_back(tracker->Top(e.cpu).site);
    }
  } probe;
  probe.tracker = &tracker;
  probe.sites = &sites;
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&probe);
  b.Play(fanout);
  return sites;
}

// The local APIC timer is not traced without irq_vectors: its raise carries the hard-IRQ bit,
// and the TIMER softirq entered right after ran at its exit.
TEST(ContextInference, SoftirqAfterAnUntracedHardIrqRanAtIrqExit) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 0, 0, kStateInterruptible, kIperf)
      .Raise(0, 100, kIperf, kTimer).Flags(kHardirqFlags)
      .SoftirqEntry(0, 150, kIperf, kTimer).Flags(kSoftirqFlags)
      .SoftirqExit(0, 200, kIperf, kTimer).Flags(kSoftirqFlags)
      .Other(0, 300, kIperf, "net_dev_xmit");
  Recorder r;
  EXPECT_THAT(SitesOf(b, &r), ::testing::ElementsAre(SoftirqSite::kIrqExit));
  const ContextInterval* irq = r.Find(ContextKind::kHardirq);
  ASSERT_NE(irq, nullptr);
  EXPECT_TRUE(irq->frame.inferred);
  EXPECT_EQ(irq->frame.irq, kUntracedIrq);
  EXPECT_EQ(b.context().strings.Get(irq->frame.name), "untraced hard IRQ");
  EXPECT_EQ(irq->frame.start_ns, 100);
  EXPECT_FALSE(irq->frame.start_known);  // it began before the first event it recorded
  EXPECT_EQ(irq->end_ns, 150);
}

// The same events without flags (text without the irq-info column): nothing to infer from.
TEST(ContextInference, WithoutFlagsNothingIsInferred) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 0, 0, kStateInterruptible, kIperf)
      .Raise(0, 100, kIperf, kTimer)
      .SoftirqEntry(0, 150, kIperf, kTimer)
      .SoftirqExit(0, 200, kIperf, kTimer);
  Recorder r;
  EXPECT_THAT(SitesOf(b, &r), ::testing::ElementsAre(SoftirqSite::kTaskBhEnable));
  EXPECT_EQ(r.Find(ContextKind::kHardirq), nullptr);
}

// A wakeup inside an untraced hard IRQ on an idle CPU: the time until the switch belongs to
// the interrupt, not to idle.
TEST(ContextInference, WakeupInsideAnUntracedHardIrqIsNotIdleTime) {
  EventBuilder b(1);
  b.Task(kRtTask, "cyclictest", 1);
  b.Switch(0, 0, kRtTask, kStateInterruptible, 0)
      .Waking(0, 100, 0, kRtTask, 0).Flags(kHardirqFlags)
      .Switch(0, 130, 0, 0, kRtTask).Flags(kIrqsOff);
  Recorder r;
  SitesOf(b, &r);
  int64_t idle_ns = 0, irq_ns = 0;
  for (const CpuSegment& s : r.segments) {
    if (s.start_ns < 100) continue;
    if (s.frame.kind == ContextKind::kHardirq) irq_ns += s.end_ns - s.start_ns;
    if (s.frame.kind == ContextKind::kTask && s.frame.pid == 0) idle_ns += s.end_ns - s.start_ns;
  }
  EXPECT_EQ(irq_ns, 30);
  EXPECT_EQ(idle_ns, 0);
}

// With flags in the trace, a raise recorded outside hard-IRQ context is the task's own: the
// softirq it leads to ran at local_bh_enable even though a traced IRQ just returned.
TEST(ContextInference, TaskRaiseAfterAnIrqEndsTheIrqTail) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 0, 0, kStateInterruptible, kIperf)
      .IrqEntry(0, 100, kIperf, 30, "eth0").Flags(kHardirqFlags)
      .IrqExit(0, 110, kIperf, 30).Flags(kHardirqFlags)
      .Raise(0, 160, kIperf, kNetTx).Flags(kBhOff)
      .SoftirqEntry(0, 170, kIperf, kNetTx).Flags(kSoftirqFlags)
      .SoftirqExit(0, 180, kIperf, kNetTx).Flags(kSoftirqFlags);
  EXPECT_THAT(SitesOf(b), ::testing::ElementsAre(SoftirqSite::kTaskBhEnable));
}

// Without flags (trace-cmd report -t, -R, --cpu N, the default report): a raise after a traced
// IRQ's exit is the task's. An IRQ raises its softirqs in its handler, before its exit event;
// a NET_RX raised 15 us after local_timer_exit ran at local_bh_enable, not at that IRQ's exit
// (issue 63, item 2: 2,404 of 7,926 runs of an RPS recording read as irq_exit).
TEST(ContextInference, WithoutFlagsARaiseAfterAnIrqExitEndsTheIrqTail) {
  EventBuilder b(1);  // the builder gives IRQ events flags: Flags(0) takes them away
  b.Task(kIperf, "iperf3").Task(kRtTask, "cyclictest", 1);
  b.Switch(0, 0, 0, kStateInterruptible, kIperf)
      .VectorEntry(0, 100, kIperf, "local_timer", 236).Flags(0)
      .VectorExit(0, 110, kIperf, "local_timer", 236).Flags(0)
      .Raise(0, 15110, kIperf, kNetRx).Flags(0)
      .SoftirqEntry(0, 15120, kIperf, kNetRx).Flags(0)
      .SoftirqExit(0, 15180, kIperf, kNetRx).Flags(0)
      .IrqEntry(0, 20000, kIperf, 30, "eth0").Flags(0)
      .IrqExit(0, 20010, kIperf, 30).Flags(0)
      .Raise(0, 20500, kIperf, kNetTx).Flags(0)
      .SoftirqEntry(0, 20600, kIperf, kNetTx).Flags(0)
      .SoftirqExit(0, 20700, kIperf, kNetTx).Flags(0)
      // A wakeup of a task that is not the IRQ's thread is the task's too.
      .VectorEntry(0, 30000, kIperf, "local_timer", 236).Flags(0)
      .Raise(0, 30005, kIperf, kTimer).Flags(0)
      .VectorExit(0, 30010, kIperf, "local_timer", 236).Flags(0)
      .SoftirqEntry(0, 30012, kIperf, kTimer).Flags(0)
      .SoftirqExit(0, 30050, kIperf, kTimer).Flags(0)
      .Waking(0, 30060, kIperf, kRtTask, 0)
      .SoftirqEntry(0, 30070, kIperf, kNetRx).Flags(0)
      .SoftirqExit(0, 30090, kIperf, kNetRx).Flags(0);
  EXPECT_THAT(SitesOf(b), ::testing::ElementsAre(SoftirqSite::kTaskBhEnable,
                                                 SoftirqSite::kTaskBhEnable,
                                                 SoftirqSite::kIrqExit,
                                                 SoftirqSite::kTaskBhEnable));
}

// Without flags a raise inside the IRQ (before its exit event) still leads to its exit.
TEST(ContextInference, WithoutFlagsARaiseInsideTheIrqRunsAtItsExit) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Task(500, "irq/30-eth0", 49);  // woken by its IRQ after irq_handler_exit, in the tail
  b.Switch(0, 0, 0, kStateInterruptible, kIperf)
      .VectorEntry(0, 100, kIperf, "local_timer", 236).Flags(0)
      .Raise(0, 105, kIperf, kTimer).Flags(0)
      .VectorExit(0, 110, kIperf, "local_timer", 236).Flags(0)
      .SoftirqEntry(0, 112, kIperf, kTimer).Flags(0)
      .SoftirqExit(0, 180, kIperf, kTimer).Flags(0)
      .IrqEntry(0, 200, kIperf, 30, "eth0").Flags(0)
      .Raise(0, 205, kIperf, kNetRx).Flags(0)
      .IrqExit(0, 210, kIperf, 30, kIrqWakeThread).Flags(0)
      .Waking(0, 211, kIperf, 500, 0)
      .SoftirqEntry(0, 212, kIperf, kNetRx).Flags(0)
      .SoftirqExit(0, 280, kIperf, kNetRx).Flags(0);
  EXPECT_THAT(SitesOf(b),
              ::testing::ElementsAre(SoftirqSite::kIrqExit, SoftirqSite::kIrqExit));
}

// Events in an NMI can come inside anything: they open no hard IRQ.
TEST(ContextInference, NmiEventsOpenNoFrame) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.Switch(0, 0, 0, kStateInterruptible, kIperf)
      .Other(0, 100, kIperf, "nmi_handler").Flags(kNmi | kHardirq | kIrqsOff)
      .Raise(0, 160, kIperf, kNetTx).Flags(kBhOff)
      .SoftirqEntry(0, 170, kIperf, kNetTx).Flags(kSoftirqFlags);
  Recorder r;
  EXPECT_THAT(SitesOf(b, &r), ::testing::ElementsAre(SoftirqSite::kTaskBhEnable));
  EXPECT_EQ(r.Find(ContextKind::kHardirq), nullptr);
}

// A softirq frame left open on CPU 1 (its exit lost) must not follow its pid to CPU 0.
TEST(ContextInference, TaskSoftirqFramesAreKeyedByCpuAndPid) {
  EventBuilder b(2);
  b.Task(kIperf, "iperf3");
  b.Switch(1, 0, 0, kStateInterruptible, kIperf)
      .SoftirqEntry(1, 100, kIperf, kNetRx)
      .Switch(1, 200, kIperf, kStatePreempted, 0)
      .Switch(0, 300, 0, kStateInterruptible, kIperf)
      .Other(0, 400, kIperf, "net_dev_xmit")
      .Switch(0, 500, kIperf, kStateInterruptible, 0);
  Recorder r;
  SitesOf(b, &r);
  for (const CpuSegment& s : r.segments) {
    if (s.frame.cpu == 0 && s.start_ns >= 300 && s.end_ns <= 500) {
      EXPECT_EQ(s.frame.kind, ContextKind::kTask) << s.start_ns;
    }
  }
}

// pid 0 is swapper/N of the CPU it runs on, whatever name the task table has for pid 0.
TEST(ContextInference, IdleIsSwapperOfItsOwnCpu) {
  EventBuilder b(2);
  b.Task(0, "swapper/1").Task(kIperf, "iperf3");
  b.Other(0, 100, 0, "cpu_idle").Switch(0, 200, 0, 0, kIperf);
  Recorder r;
  SitesOf(b, &r);
  const ContextInterval* idle = r.Find(ContextKind::kTask, 0);
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->frame.pid, 0);
  EXPECT_EQ(b.context().strings.Get(idle->frame.name), "swapper/0");
}

// A NAPI poll recorded while serving a softirq whose entry came before the CPU's first event:
// the softirq bit says so; it is not busy polling.
TEST(ContextInference, NapiPollInASoftirqBegunBeforeTheTraceIsUnknown) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.IrqEntry(0, 50, kIperf, 30, "eth0").Flags(kHardirqFlags | kSoftirqFlags)
      .IrqExit(0, 60, kIperf, 30).Flags(kHardirqFlags | kSoftirqFlags)
      .NapiPoll(0, 100, kIperf, 0xabc, "eth0", 64, 64).Flags(kSoftirqFlags)
      .SoftirqExit(0, 120, kIperf, kNetRx).Flags(kSoftirqFlags);
  Recorder r;
  SitesOf(b, &r);
  const ContextInterval* poll = r.Find(ContextKind::kNapiPoll);
  ASSERT_NE(poll, nullptr);
  EXPECT_EQ(poll->frame.site, SoftirqSite::kUnknown);
}

// Without flags, a poll by a task not seen from its switch-in cannot be told from a softirq
// that began before the trace: unknown too, even after an IRQ moved the NAPI cursor.
TEST(ContextInference, NapiPollWithoutFlagsBeforeTheFirstSwitchIsUnknown) {
  EventBuilder b(1);
  b.Task(kIperf, "iperf3");
  b.IrqEntry(0, 50, kIperf, 30, "eth0").Flags(0)  // a trace without common_flags
      .IrqExit(0, 60, kIperf, 30).Flags(0)
      .NapiPoll(0, 100, kIperf, 0xabc, "eth0", 64, 64);
  Recorder r;
  SitesOf(b, &r);
  const ContextInterval* poll = r.Find(ContextKind::kNapiPoll);
  ASSERT_NE(poll, nullptr);
  EXPECT_EQ(poll->frame.site, SoftirqSite::kUnknown);
}

// A task first seen without its switch-in is named by saved cmdlines (the name at the end of
// the recording, after exec); its switch-out names it as it was.
TEST(ContextInference, TaskNameIsTheNameItHadThen) {
  constexpr int32_t kChrt = 700;
  EventBuilder b(1);
  b.Task(kChrt, "chrt").Task(kIperf, "iperf3");
  b.Other(0, 100, kChrt, "sys_enter").Switch(0, 200, kChrt, kStateInterruptible, kIperf);
  // While streaming, only saved cmdlines (the later name) are known at the first event.
  b.context().tasks = TaskTable();
  b.context().tasks.SetInitialComm(kChrt, b.context().strings.Intern("taskset"));
  Recorder r;
  SitesOf(b, &r);
  const ContextInterval* task = r.Find(ContextKind::kTask, 0);
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->frame.pid, kChrt);
  EXPECT_EQ(b.context().strings.Get(task->frame.name), "chrt");
}

}  // namespace
}  // namespace napiscope
