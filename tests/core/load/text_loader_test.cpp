// The ftrace text loader on hand-written lines of every layout it reads.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "load/text_flags.h"
#include "load/text_line_parser.h"
#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::WriteFile;
using ::napiscope::tracegen::CollectingSink;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TextLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  absl::Status Load(const std::string& text, const std::string& name = "trace.txt") {
    path_ = dir_ + "/" + name;
    WriteFile(path_, text);
    CollectingSink sink;
    context_ = TraceContext();
    absl::Status status = LoadTrace(path_, context_, sink);
    events_ = std::move(sink.events);
    return status;
  }

  std::string Str(StringId id) const { return std::string(context_.strings.Get(id)); }
  std::string Name(const Event& event) const { return Str(event.name); }

  std::string dir_;
  std::string path_;
  TraceContext context_;
  std::vector<Event> events_;
};

constexpr char kKernelHeader[] =
    "# tracer: nop\n"
    "#\n"
    "# entries-in-buffer/entries-written: 20/20   #P:4\n"
    "#\n"
    "#                                _-----=> irqs-off/BH-disabled\n"
    "#                               / _----=> need-resched\n"
    "#                              | / _---=> hardirq/softirq\n"
    "#                              || / _--=> preempt-depth\n"
    "#                              ||| / _-=> migrate-disable\n"
    "#                              |||| /     delay\n"
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |         |   |||||     |         |\n";

TEST_F(TextLoaderTest, KernelFormatWithFlagsColumn) {
  std::string text =
      std::string(kKernelHeader) +
      "          <idle>-0       [001] d.h1.   160.740307: softirq_raise: vec=9 [action=RCU]\n"
      "          <idle>-0       [001] ..s1.   160.740310: softirq_entry: vec=9 [action=RCU]\n"
      "          <idle>-0       [001] d.h2.   160.740400: irq_handler_entry: irq=354 "
      "name=4848400.ethernet\n"
      "          <idle>-0       [001] d.h2.   160.740401: sched_waking: comm=irq/354-4848400 "
      "pid=181 prio=49 target_cpu=000\n"
      "          <idle>-0       [001] d.h2.   160.740402: irq_handler_exit: irq=354 ret=handled\n"
      "     Web Content-4321    [002] dNs2.   160.740500123: napi_poll: napi poll on napi struct "
      "00000000b5c1e2f3 for device eth0 work 64 budget 64\n"
      " kworker/u4:1-events_unbound-58      [000] d..2.   160.741000: sched_switch: "
      "prev_comm=kworker/u4:1-events_unbound prev_pid=58 prev_prio=120 prev_state=I ==> "
      "next_comm=Web Content next_pid=4321 next_prio=120\n"
      "     Web Content-4321    [000] d..2.   160.742000: sched_switch: prev_comm=Web Content "
      "prev_pid=4321 prev_prio=120 prev_state=R+ ==> next_comm=rcuc/0 next_pid=17 next_prio=98\n"
      "          rcuc/0-17      [000] D.Z..   160.743000: local_timer_entry: vector=236\n"
      "          rcuc/0-17      [000] b....   160.744000: tracing_mark_write: hello world\n";
  ASSERT_TRUE(Load(text).ok());
  EXPECT_EQ(context_.meta.format, TraceFormat::kFtraceText);
  EXPECT_EQ(context_.meta.cpus, 4);  // from #P:4 although only CPUs 0-2 have events
  EXPECT_EQ(context_.meta.skipped_lines, 0);
  ASSERT_EQ(events_.size(), 10u);

  const Event& raise = events_[0];
  EXPECT_EQ(raise.ts_ns, 160'740'307'000);
  EXPECT_EQ(raise.cpu, 1);
  EXPECT_EQ(raise.pid, 0);
  EXPECT_EQ(raise.kind, EventKind::kSoftirqRaise);
  EXPECT_EQ(raise.flags, kIrqsOff | kHardirq);
  EXPECT_EQ(raise.softirq.vec, 9u);
  EXPECT_EQ(events_[1].flags, kSoftirq);

  const Event& irq = events_[2];
  EXPECT_EQ(irq.kind, EventKind::kIrqHandlerEntry);
  EXPECT_EQ(irq.irq.irq, 354);
  EXPECT_EQ(Str(irq.irq.handler), "4848400.ethernet");

  const Event& waking = events_[3];
  EXPECT_EQ(waking.kind, EventKind::kSchedWaking);
  EXPECT_EQ(Str(waking.wake.comm), "irq/354-4848400");
  EXPECT_EQ(waking.wake.pid, 181);
  EXPECT_EQ(waking.wake.prio, 49);
  EXPECT_EQ(waking.wake.target_cpu, 0);
  EXPECT_EQ(events_[4].irq.ret, 1);

  const Event& napi = events_[5];
  EXPECT_EQ(napi.ts_ns, 160'740'500'123);
  EXPECT_EQ(napi.cpu, 2);
  EXPECT_EQ(napi.pid, 4321);
  // 'N' in the kernel's legend is TIF_NEED_RESCHED and PREEMPT_NEED_RESCHED.
  EXPECT_EQ(napi.flags, kIrqsOff | kNeedResched | kPreemptResched | kSoftirq);
  EXPECT_EQ(napi.napi.napi, 0xb5c1e2f3u);
  EXPECT_EQ(Str(napi.napi.dev), "eth0");
  EXPECT_EQ(napi.napi.work, 64);
  EXPECT_EQ(napi.napi.budget, 64);

  const SchedSwitchFields& to_web = events_[6].sched_switch;
  EXPECT_EQ(events_[6].pid, 58);
  EXPECT_EQ(Str(to_web.prev_comm), "kworker/u4:1-events_unbound");
  EXPECT_EQ(to_web.prev_state, kStateIdle);
  EXPECT_EQ(Str(to_web.next_comm), "Web Content");
  EXPECT_EQ(to_web.next_pid, 4321);
  const SchedSwitchFields& to_rcuc = events_[7].sched_switch;
  EXPECT_EQ(to_rcuc.prev_state, kStatePreempted);
  EXPECT_EQ(to_rcuc.next_prio, 98);

  const Event& timer = events_[8];
  EXPECT_EQ(timer.kind, EventKind::kIrqVectorEntry);
  EXPECT_EQ(timer.irq.irq, 236);
  EXPECT_EQ(Str(timer.irq.handler), "local_timer");
  EXPECT_EQ(timer.flags, kIrqsOff | kBhOff | kNmi | kHardirq);

  const Event& marker = events_[9];
  EXPECT_EQ(marker.kind, EventKind::kOther);
  EXPECT_EQ(Name(marker), "tracing_mark_write");
  EXPECT_EQ(marker.flags, kBhOff);

  // The comm column names tasks; placeholders like <idle> do not.
  EXPECT_EQ(Str(context_.tasks.CommOf(4321)), "Web Content");
  EXPECT_EQ(Str(context_.tasks.CommOf(58)), "kworker/u4:1-events_unbound");
  EXPECT_EQ(context_.tasks.Find(0), nullptr);
}

TEST_F(TextLoaderTest, KernelFormatWithTgidAndWithoutFlags) {
  std::string text =
      "           <...>-1234    (   1200) [003]   5.000001: softirq_exit: vec=3 [action=NET_RX]\n"
      "          <idle>-0       (-------) [003]   5.000002: softirq_entry: vec=1 [action=TIMER]\n"
      "          iperf3-1234    (   1200) [003] ..s1.   5.000003: softirq_exit: vec=1 "
      "[action=TIMER]\n";
  ASSERT_TRUE(Load(text).ok());
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0].pid, 1234);
  EXPECT_EQ(events_[0].cpu, 3);
  EXPECT_EQ(events_[0].flags, 0);
  EXPECT_EQ(events_[1].pid, 0);
  EXPECT_EQ(events_[1].softirq.vec, 1u);
  EXPECT_EQ(events_[2].flags, kSoftirq);
  EXPECT_EQ(context_.meta.cpus, 4);  // no header: highest CPU seen + 1
  EXPECT_EQ(Str(context_.tasks.CommOf(1234)), "iperf3");
}

TEST_F(TextLoaderTest, LineParserReadsTheTgidColumn) {
  internal::TextEventLine line;
  ASSERT_TRUE(internal::ParseEventLine(
      "   (sd-pam)-812     (    810) [000] .....  12.500000: sched_process_exit: comm=(sd-pam) "
      "pid=812 prio=120 group_dead=false",
      &line));
  EXPECT_EQ(line.comm, "(sd-pam)");
  EXPECT_EQ(line.pid, 812);
  EXPECT_EQ(line.tgid, 810);
  EXPECT_EQ(line.name, "sched_process_exit");
  EXPECT_EQ(line.ts_ns, 12'500'000'000);
}

TEST_F(TextLoaderTest, TraceCmdReportForms) {
  std::string text =
      "version = 6\n"
      "CPU 3 is empty\n"
      "cpus=4\n"
      "          iperf3-10780 [000]   705.337831: sched_switch:         iperf3:10780 [120] R ==> "
      "cyclictest:10781 [1]\n"
      "      cyclictest-10781 [000]   705.337842: sched_switch:         cyclictest:10781 [1] S|D "
      "==> ksoftirqd/0:14 [120]\n"
      "          iperf3-10780 [000]   705.337843: sched_wakeup:         cyclictest:10781 [1] "
      "CPU:002\n"
      "CPU:2 [120 EVENTS DROPPED]\n"
      "       record.sh-9920  [002]   621.827194: sched_process_fork:   comm=record.sh pid=9920 "
      "child_comm=record.sh child_pid=9922\n"
      "       record.sh-9920  [002]   621.827204: sched_wakeup_new:     record.sh:9922 [120] "
      "success=1 CPU:000\n"
      "CPU:1 [EVENTS DROPPED]\n"
      "     migration/1-18    [001]   705.405508: sched_migrate_task:   comm=iperf3 pid=9918 "
      "prio=120 orig_cpu=1 dest_cpu=0\n"
      "     migration/1-18    [001]   705.405509: sched_pi_setprio:     comm=ktimers/1 pid=20 "
      "oldprio=120 newprio=49\n";
  ASSERT_TRUE(Load(text).ok());
  EXPECT_EQ(context_.meta.format, TraceFormat::kTraceCmdText);
  EXPECT_EQ(context_.meta.cpus, 4);
  EXPECT_EQ(context_.meta.skipped_lines, 0);
  ASSERT_EQ(events_.size(), 9u);  // 7 events and 2 missed-events marks

  // The CPU 2 lines (621 s) are printed after CPU 0's (705 s): each CPU's lines are in order,
  // so the loader merges them by time, as it does `cat per_cpu/cpu*/trace`, without a warning.
  const Event& gap = events_[0];
  EXPECT_EQ(gap.kind, EventKind::kMissedEvents);
  EXPECT_EQ(gap.cpu, 2);
  // Placed at the next event of that CPU, as the trace.dat loader places it.
  EXPECT_EQ(gap.ts_ns, 621'827'194'000);
  EXPECT_EQ(gap.missed.count, 120);
  EXPECT_EQ(events_[1].fork.parent_pid, 9920);
  EXPECT_EQ(events_[1].fork.child_pid, 9922);
  EXPECT_EQ(Str(events_[1].fork.child_comm), "record.sh");
  EXPECT_EQ(events_[2].kind, EventKind::kSchedWakeupNew);
  EXPECT_EQ(events_[2].wake.pid, 9922);
  EXPECT_EQ(events_[2].wake.target_cpu, 0);

  const SchedSwitchFields& preempted = events_[3].sched_switch;
  EXPECT_EQ(events_[3].ts_ns, 705'337'831'000);
  EXPECT_EQ(Str(preempted.prev_comm), "iperf3");
  EXPECT_EQ(preempted.prev_state, 0);
  EXPECT_EQ(preempted.next_pid, 10781);
  EXPECT_EQ(preempted.next_prio, 1);
  // The plugin's letters are bits 0-7 in order "SDTtZXxW".
  EXPECT_EQ(events_[4].sched_switch.prev_state, kStateInterruptible | kStateUninterruptible);
  EXPECT_EQ(events_[5].wake.target_cpu, 2);
  EXPECT_EQ(events_[5].wake.prio, 1);
  EXPECT_EQ(events_[6].kind, EventKind::kMissedEvents);
  EXPECT_EQ(events_[6].missed.count, -1);
  EXPECT_EQ(events_[7].migrate.orig_cpu, 1);
  EXPECT_EQ(events_[7].migrate.dest_cpu, 0);
  EXPECT_EQ(events_[8].pi.pid, 20);
  EXPECT_EQ(events_[8].pi.old_prio, 120);
  EXPECT_EQ(events_[8].pi.new_prio, 49);

  ASSERT_EQ(context_.missed.size(), 2u);
  EXPECT_EQ(context_.missed[0].cpu, 2);
  EXPECT_EQ(context_.missed[0].count, 120);
  EXPECT_EQ(context_.missed[0].last_before_ns, -1);
  EXPECT_THAT(context_.meta.warnings,
              ::testing::ElementsAre(HasSubstr("timestamps are printed to 1.0 us")));
}

// Time going backwards within one CPU is the one disorder text must not have: warned about.
TEST_F(TextLoaderTest, TimeGoingBackwardsOnOneCpuIsAWarning) {
  std::string text =
      "cpus=1\n"
      "  iperf3-10780 [000]   705.000002: softirq_raise:        vec=3 [action=NET_RX]\n"
      "  iperf3-10780 [000]   705.000001: softirq_entry:        vec=3 [action=NET_RX]\n"
      "  iperf3-10780 [000]   705.000003: softirq_exit:         vec=3 [action=NET_RX]\n";
  ASSERT_TRUE(Load(text).ok());
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_THAT(context_.meta.warnings,
              ::testing::ElementsAre(HasSubstr("1 events have timestamps earlier than the "
                                               "previous event on their CPU"),
                                     HasSubstr("timestamps are printed to 1.0 us"),
                                     HasSubstr("the text has no irq-info column")));
}

TEST_F(TextLoaderTest, TraceCmdLatencyColumnGluesCpuAndFlags) {
  std::string text =
      "cpus=2\n"
      "  <idle>-0       1d.h1.  1553.287692326: call_function_single_entry: vector=251\n"
      "ksoftirq-22      1..s..  1553.291482886: softirq_entry:        vec=3 [action=NET_RX]\n"
      "  iperf3-17604   0dNh2.  1553.291482999: softirq_raise:        vec=7 [action=SCHED]\n";
  ASSERT_TRUE(Load(text).ok());
  EXPECT_EQ(context_.meta.format, TraceFormat::kTraceCmdText);
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0].cpu, 1);
  EXPECT_EQ(events_[0].flags, kIrqsOff | kHardirq);
  EXPECT_EQ(events_[0].kind, EventKind::kIrqVectorEntry);
  EXPECT_EQ(events_[0].irq.irq, 251);
  EXPECT_EQ(events_[1].pid, 22);
  EXPECT_EQ(events_[1].flags, kSoftirq);
  EXPECT_EQ(events_[2].cpu, 0);
  // libtraceevent's 'N' is need-resched alone.
  EXPECT_EQ(events_[2].flags, kIrqsOff | kNeedResched | kHardirq);
  // -l cuts comms to 8 characters: "ksoftirq" must not become the name of pid 22.
  EXPECT_EQ(context_.tasks.Find(22), nullptr);
  EXPECT_EQ(Str(context_.tasks.CommOf(17604)), "iperf3");
}

TEST(TextFlags, DecodesBothLegends) {
  using internal::DecodeFlagsColumn;
  using internal::FlagsDialect;
  uint8_t flags = 0;
  ASSERT_TRUE(DecodeFlagsColumn("dNs2.", FlagsDialect::kKernel, &flags));
  EXPECT_EQ(flags, kIrqsOff | kNeedResched | kPreemptResched | kSoftirq);
  ASSERT_TRUE(DecodeFlagsColumn("dNs2.", FlagsDialect::kTraceCmd, &flags));
  EXPECT_EQ(flags, kIrqsOff | kNeedResched | kSoftirq);
  ASSERT_TRUE(DecodeFlagsColumn("bnH1.", FlagsDialect::kKernel, &flags));
  EXPECT_EQ(flags, kBhOff | kNeedResched | kHardirq | kSoftirq);
  ASSERT_TRUE(DecodeFlagsColumn(".pz..", FlagsDialect::kKernel, &flags));
  EXPECT_EQ(flags, kPreemptResched | kNmi);
  ASSERT_TRUE(DecodeFlagsColumn("X....", FlagsDialect::kKernel, &flags));
  EXPECT_EQ(flags, 0);
  ASSERT_TRUE(DecodeFlagsColumn(".B...", FlagsDialect::kKernel, &flags));
  EXPECT_EQ(flags, kNeedResched | kPreemptResched | 0x02);
  EXPECT_FALSE(DecodeFlagsColumn("q....", FlagsDialect::kKernel, &flags));
  EXPECT_FALSE(DecodeFlagsColumn(".p...", FlagsDialect::kTraceCmd, &flags));
}

TEST(TextTimestamps, ConvertToIntegerNanoseconds) {
  TimestampNs ts = 0;
  ASSERT_TRUE(internal::ParseTimestampNs("160.740307", &ts));
  EXPECT_EQ(ts, 160'740'307'000);
  ASSERT_TRUE(internal::ParseTimestampNs("160.740307123", &ts));
  EXPECT_EQ(ts, 160'740'307'123);
  ASSERT_TRUE(internal::ParseTimestampNs("0.5", &ts));
  EXPECT_EQ(ts, 500'000'000);
  EXPECT_FALSE(internal::ParseTimestampNs("12345", &ts));  // a clock's count: see below
  EXPECT_FALSE(internal::ParseTimestampNs("1.1234567891", &ts));
  EXPECT_FALSE(internal::ParseTimestampNs("1.", &ts));
  EXPECT_FALSE(internal::ParseTimestampNs("99999999999999.1", &ts));
  TimestampNs resolution = 0;
  ASSERT_TRUE(internal::ParseTimestampNs("160.740307", &ts, &resolution));
  EXPECT_EQ(resolution, 1000);
  ASSERT_TRUE(internal::ParseTimestampNs("160.740307123", &ts, &resolution));
  EXPECT_EQ(resolution, 1);
  ASSERT_TRUE(internal::ParseTimestampNs("0.5", &ts, &resolution));
  EXPECT_EQ(resolution, 100'000'000);
}

TEST_F(TextLoaderTest, TimestampsOfAClockThatCountsCyclesAreRefusedNamingTheLine) {
  // The kernel's trace file with trace_clock x86-tsc (or counter, uptime): "%12llu: ".
  std::string text =
      std::string(kKernelHeader) +
      "          iperf3-99      [001] ..... 162343674284316: softirq_raise: vec=3 [action=NET_RX]\n"
      "          iperf3-99      [001] ..s.. 162343674290316: softirq_entry: vec=3 "
      "[action=NET_RX]\n";
  absl::Status status = Load(text);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message())
                .find("line 13: timestamp 162343674284316 has no decimal point: the trace_clock "
                      "counted cycles or events"),
            std::string::npos)
      << status;
  EXPECT_TRUE(events_.empty());
}

TEST_F(TextLoaderTest, TextOfAnOptionThatHidesTheEventsNamesTheOption) {
  // options/raw, then options/context-info off, on the kernel's trace file (the message
  // begins with the path).
  auto EndsWith = [](const std::string& text, const std::string& end) {
    return text.ends_with(end);
  };
  absl::Status status = Load(std::string(kKernelHeader) +
                             "12684 1 60308125962081 type: 372\n0 0 60308127245329 type: 221\n");
  EXPECT_PRED2(EndsWith, std::string(status.message()),
               "no event could be parsed from 14 lines (line 13: the kernel's raw, hex or bin "
               "output (options/raw, hex or bin), which napiscope does not read: turn the option "
               "off: '12684 1 60308125962081 type: 372')");
  status = Load(std::string(kKernelHeader) + "softirq_exit: vec=9 [action=RCU]\n");
  EXPECT_PRED2(EndsWith, std::string(status.message()),
               "no event could be parsed from 13 lines (line 13: an event without its task, CPU "
               "and time (options/context-info off): turn it on: 'softirq_exit: vec=9 "
               "[action=RCU]')");
  status = Load(std::string(kKernelHeader) + "hello: world\n");
  EXPECT_PRED2(
      EndsWith, std::string(status.message()),
      "no event could be parsed from 13 lines (line 13: not an event line: 'hello: world')");
}

// perf script of tracepoints: "comm pid [cpu] ts: system:event: fields", "comm pid/tid" with
// -F pid,tid, and --show-lost-events' PERF_RECORD_LOST lines (as recorded on this machine).
TEST_F(TextLoaderTest, PerfScriptTextIsReadWithItsLostRecordsAsGaps) {
  std::string text =
      "         swapper     0 [001] 61516.572400: irq:irq_handler_entry: irq=36 "
      "name=virtio1-req.0\n"
      "     Web Content  1234 [001] 61516.572408:     irq:softirq_raise: vec=4 [action=BLOCK]\n"
      "            ping 15724/15725 [001] 61549.050687: irq:softirq_exit: vec=3 "
      "[action=NET_RX]\n"
      "            ping 15724 [001] 61549.050952: PERF_RECORD_LOST lost 224\n"
      "            ping 15724 [001] 61549.050952:     irq:softirq_raise: vec=3 [action=NET_RX]\n";
  ASSERT_TRUE(Load(text).ok());
  EXPECT_EQ(context_.meta.format, TraceFormat::kPerfScriptText);
  ASSERT_EQ(events_.size(), 5u);
  EXPECT_EQ(events_[0].kind, EventKind::kIrqHandlerEntry);
  EXPECT_EQ(events_[0].pid, 0);
  EXPECT_EQ(events_[0].irq.irq, 36);
  EXPECT_EQ(events_[1].kind, EventKind::kSoftirqRaise);
  EXPECT_EQ(events_[1].pid, 1234);
  EXPECT_EQ(events_[1].ts_ns, 61516'572408'000);
  EXPECT_EQ(events_[2].kind, EventKind::kSoftirqExit);
  EXPECT_EQ(events_[2].pid, 15725);  // the tid
  EXPECT_EQ(events_[3].kind, EventKind::kMissedEvents);
  EXPECT_EQ(events_[3].cpu, 1);
  EXPECT_EQ(events_[3].missed.count, 224);
  EXPECT_EQ(events_[4].kind, EventKind::kSoftirqRaise);
  EXPECT_EQ(events_[4].softirq.vec, 3u);
  EXPECT_EQ(context_.meta.skipped_lines, 0);
  EXPECT_EQ(Str(context_.tasks.CommOf(1234)), "Web Content");
  EXPECT_THAT(context_.meta.warnings,
              ::testing::Contains(HasSubstr("exact only to that (perf script --ns gives")));
}

TEST_F(TextLoaderTest, KernelLostEventsLineCarriesTheCount) {
  std::string text =
      std::string(kKernelHeader) +
      "          iperf3-99      [001] .....   1.000000: softirq_raise: vec=3 [action=NET_RX]\n"
      "CPU:1 [LOST 4711 EVENTS]\n"
      "          iperf3-99      [001] .....   1.500000: softirq_entry: vec=3 [action=NET_RX]\n";
  ASSERT_TRUE(Load(text).ok());
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[1].kind, EventKind::kMissedEvents);
  EXPECT_EQ(events_[1].missed.count, 4711);
  ASSERT_EQ(context_.missed.size(), 1u);
  EXPECT_EQ(context_.missed[0].ts_ns, 1'500'000'000);
  EXPECT_EQ(context_.missed[0].last_before_ns, 1'000'000'000);
}

}  // namespace
}  // namespace napiscope
