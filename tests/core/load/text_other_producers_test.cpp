// Text as other tools print it (issue 17): `trace-cmd report -R`, per-CPU files concatenated,
// the kernel's latency format, Android systrace, stack traces, lost-events lines and every
// task-state letter. Where a trace.dat exists, the report must be the one the trace.dat gives.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "napiscope/report_render.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::AnalyzeTraceWithoutFlags;
using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using ::napiscope::tracegen::CollectingSink;
using ::testing::HasSubstr;

// The report of `path` without its "trace" part (path, format, warnings differ by form) and
// the kernel verdict's parts that come from the trace.dat's uname, which text does not carry.
nlohmann::json Analyses(const Report& report, TraceMeta* meta) {
  nlohmann::json json = ReportToJson(report);
  if (meta != nullptr) {
    meta->warnings.clear();
    for (const auto& warning : json["trace"]["warnings"]) meta->warnings.push_back(warning);
    meta->skipped_lines = json["trace"]["skipped_lines"].get<int64_t>();
  }
  json.erase("trace");
  for (const char* from_uname : {"release", "evidence", "preempt_rt"}) {
    json["kernel"].erase(from_uname);
  }
  nlohmann::json evidence = nlohmann::json::array();  // "uname" is the trace.dat's alone
  for (const auto& used : json["kernel"]["evidence_used"]) {
    if (used != "uname") evidence.push_back(used);
  }
  json["kernel"]["evidence_used"] = evidence;
  return json;
}

nlohmann::json AnalysesOf(const std::string& path, TraceMeta* meta = nullptr) {
  Report report;
  absl::Status status = AnalyzeTrace(path, AnalysisOptions{}, &report);
  EXPECT_TRUE(status.ok()) << status;
  return Analyses(report, meta);
}

// What text without latency columns must give: the trace.dat's events without common_flags,
// which the contexts use where they are recorded (docs/contexts.md).
nlohmann::json AnalysesWithoutFlagsOf(const std::string& dat) {
  Report report;
  absl::Status status = AnalyzeTraceWithoutFlags(dat, &report);
  EXPECT_TRUE(status.ok()) << status;
  return Analyses(report, nullptr);
}

// Reports the first top-level section that differs, not 100 kB of JSON.
void ExpectSameAnalyses(const nlohmann::json& want, const nlohmann::json& got) {
  for (auto it = want.begin(); it != want.end(); ++it) {
    ASSERT_TRUE(got.contains(it.key())) << it.key();
    EXPECT_EQ(it.value().dump(1), got[it.key()].dump(1)) << "section " << it.key();
  }
  EXPECT_EQ(want.size(), got.size());
}

struct TextForm {
  const char* name;
  const char* report_flags;  // trace-cmd report options besides -i and --cpu
  bool per_cpu;              // one `--cpu N` report per CPU, concatenated (cat per_cpu/cpuN)
};

const TextForm kForms[] = {
    {"raw", "-t -R", false},
    {"per_cpu", "-t", true},
    {"per_cpu_raw", "-t -R", true},
    {"ts_diff", "-t --ts-diff", false},  // "(+472)" after each time
    {"wakeup_latency", "-t -w", false},  // " Latency: 37.211 usecs", a summary
};

void PrintTo(const TextForm& form, std::ostream* os) { *os << form.name; }

class OtherFormsTest : public ::testing::TestWithParam<std::tuple<std::string, TextForm>> {};

TEST_P(OtherFormsTest, ReportIsTheTraceDatReport) {
  if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
  const auto& [trace, form] = GetParam();
  std::string dat = TestData(trace + ".dat");
  TraceContext context;
  CollectingSink sink;
  ASSERT_TRUE(LoadTrace(dat, context, sink).ok());
  std::string text;
  for (int cpu = 0; cpu < (form.per_cpu ? context.meta.cpus : 1); ++cpu) {
    std::string command = std::string("trace-cmd report ") + form.report_flags + " -i " + dat;
    if (form.per_cpu) command += " --cpu " + std::to_string(cpu);
    testing::CommandResult report = RunCommand(command);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    text += report.out;
  }
  std::string dir = MakeTempDir();
  std::string path = dir + "/trace.txt";
  WriteFile(path, text);
  TraceMeta meta;
  nlohmann::json got = AnalysesOf(path, &meta);
  EXPECT_EQ(meta.skipped_lines, 0);
  // None of these forms prints the latency columns: no common_flags reach the contexts, which
  // the one warning says where softirqs ran and no x86 vector was traced.
  bool softirqs = false, vectors = false;
  for (const Event& event : sink.events) {
    softirqs = softirqs || event.kind == EventKind::kSoftirqEntry;
    vectors = vectors || event.kind == EventKind::kIrqVectorEntry;
  }
  if (softirqs && !vectors) {
    EXPECT_THAT(meta.warnings,
                ::testing::ElementsAre(::testing::HasSubstr("the text has no irq-info column")));
  } else {
    EXPECT_THAT(meta.warnings, ::testing::IsEmpty());
  }
  ExpectSameAnalyses(AnalysesWithoutFlagsOf(dat), got);
  std::filesystem::remove_all(dir);
}

std::string FormTestName(const ::testing::TestParamInfo<std::tuple<std::string, TextForm>>& info) {
  std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
  for (char& c : name) {
    if (c == '-' || c == '/') c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Traces, OtherFormsTest,
    ::testing::Combine(::testing::Values("real/idle", "real/short-v6", "real/veth-softirq-napi",
                                         "scenarios/missed_events_gap",
                                         "scenarios/ksoftirqd_blocked",
                                         "scenarios/rt_wake_latency"),
                       ::testing::ValuesIn(kForms)),
    FormTestName);

// testdata/text/short-v6.per-cpu.txt.xz: `trace-cmd report -t --cpu N` of short-v6.dat for
// N = 0, 1, concatenated, as `cat per_cpu/cpu*/trace` gives. Merged per CPU by time, it must
// read as the trace.dat (before, 16,000 events were clamped and latencies on CPU 1 read 0).
TEST(StoredTextForms, PerCpuConcatenatedReadsAsTheTraceDat) {
  TraceMeta meta;
  nlohmann::json got = AnalysesOf(TestData("text/short-v6.per-cpu.txt.xz"), &meta);
  EXPECT_EQ(meta.skipped_lines, 0);
  EXPECT_THAT(meta.warnings, ::testing::IsEmpty());
  ExpectSameAnalyses(AnalysesWithoutFlagsOf(TestData("real/short-v6.dat")), got);  // no flags
}

struct Loaded {
  TraceContext context;
  std::vector<Event> events;
  std::string Str(StringId id) const { return std::string(context.strings.Get(id)); }
};

void LoadText(const std::string& name, Loaded* loaded) {
  CollectingSink sink;
  absl::Status status = LoadTrace(TestData("text/" + name), loaded->context, sink);
  ASSERT_TRUE(status.ok()) << status;
  loaded->events = std::move(sink.events);
}

// The kernel's latency-format option: CPU glued to the flags, microseconds since the buffer
// started, delay marks, comms cut to 8 characters.
TEST(StoredTextForms, KernelLatencyFormat) {
  Loaded t;
  LoadText("kernel-latency-format.txt", &t);
  const TraceMeta& meta = t.context.meta;
  EXPECT_EQ(meta.format, TraceFormat::kFtraceText);
  EXPECT_EQ(meta.cpus, 2);  // "#P:2" inside the latency header
  EXPECT_EQ(meta.skipped_lines, 0);
  ASSERT_EQ(t.events.size(), 16u);
  EXPECT_EQ(t.events[0].ts_ns, 486'183'281'000);
  EXPECT_EQ(t.events[0].cpu, 1);
  EXPECT_EQ(t.events[0].kind, EventKind::kIrqHandlerEntry);
  EXPECT_EQ(t.events[0].flags, kIrqsOff | kHardirq);
  // Lines are not in time order across CPUs (CPU 0's exit at 301 us is printed before CPU 1's
  // switch at 300 us): merged by time, nothing clamped.
  for (size_t i = 1; i < t.events.size(); ++i) {
    ASSERT_LE(t.events[i - 1].ts_ns, t.events[i].ts_ns) << i;
  }
  auto exit = std::find_if(t.events.begin(), t.events.end(), [](const Event& e) {
    return e.kind == EventKind::kSoftirqExit && e.cpu == 0;
  });
  ASSERT_NE(exit, t.events.end());
  EXPECT_EQ(exit->ts_ns, 486'183'301'000);
  EXPECT_EQ(exit->pid, 24116);
  EXPECT_EQ(exit->flags, kSoftirq);
  auto poll = std::find_if(t.events.begin(), t.events.end(),
                           [](const Event& e) { return e.kind == EventKind::kNapiPoll; });
  ASSERT_NE(poll, t.events.end());
  EXPECT_EQ(poll->pid, 4100);
  EXPECT_EQ(poll->napi.work, 3);
  // The NAPI thread's name is cut in its own lines ("napi/vb-") but whole in the fields of
  // sched_waking/sched_switch; ksoftirqd/1 is named by nothing else and stays unnamed.
  EXPECT_TRUE(meta.comms_cut);
  EXPECT_EQ(t.Str(t.context.tasks.CommOf(4100)), "napi/vb-4099");
  EXPECT_EQ(t.Str(t.context.tasks.CommOf(77)), "kworker/u8:3");
  EXPECT_EQ(t.context.tasks.CommOf(21), 0u);
  ASSERT_EQ(meta.warnings.size(), 2u);
  EXPECT_THAT(meta.warnings[0], HasSubstr("timestamps are printed to 1.0 us"));  // "486183281us"
  EXPECT_THAT(meta.warnings[1], HasSubstr("cut to 8 characters"));
  EXPECT_THAT(meta.warnings[1], HasSubstr("1 task is named by nothing else and left unnamed (cut "
                                          "name: ksoftirq (pid 21))"));
}

// Android systrace / atrace: a TGID column, 4-character flags, trace_marker and function-tracer
// lines mixed in, and no newline after the last line.
TEST(StoredTextForms, AndroidSystrace) {
  Loaded t;
  LoadText("android-systrace.txt", &t);
  const TraceMeta& meta = t.context.meta;
  EXPECT_EQ(meta.skipped_lines, 0) << ::testing::PrintToString(meta.warnings);
  EXPECT_EQ(meta.cpus, 4);
  ASSERT_EQ(t.events.size(), 14u);
  EXPECT_EQ(t.events[4].kind, EventKind::kNapiPoll);
  EXPECT_EQ(t.Str(t.events[4].napi.dev), "rndis0");
  EXPECT_EQ(t.events[4].flags, kSoftirq);
  EXPECT_EQ(t.Str(t.events[8].name), "function");
  EXPECT_EQ(t.events[8].kind, EventKind::kOther);
  EXPECT_EQ(t.Str(t.events[9].name), "my_driver_poll");  // trace_printk
  const Event& last = t.events.back();  // the line without a newline
  EXPECT_EQ(last.ts_ns, 5321'406'500'000);
  EXPECT_EQ(last.sched_switch.prev_state, kStateInterruptible);
  EXPECT_EQ(t.events[12].sched_switch.prev_state, kStateUninterruptible);  // "D|K"
  EXPECT_EQ(t.Str(t.context.tasks.CommOf(959)), "surfaceflinger");
}

// The stacktrace option: each event followed by a "<stack trace>" record and " => " frames.
// They are no events: the stream is the one without them, and the softirq that ran at IRQ
// exit is still seen there.
TEST(StoredTextForms, StackTracesLostEventsAndStateLetters) {
  Loaded t;
  LoadText("kernel-6.12-stacktrace-lost-states.txt", &t);
  const TraceMeta& meta = t.context.meta;
  EXPECT_EQ(meta.skipped_lines, 0) << ::testing::PrintToString(meta.warnings);
  EXPECT_EQ(meta.stack_records, 7);  // 6 kernel stacks, 1 user stack
  std::vector<std::string> names;
  for (const Event& e : t.events) names.push_back(e.kind == EventKind::kMissedEvents ? "gap" : t.Str(e.name));
  EXPECT_THAT(std::vector<std::string>(names.begin(), names.begin() + 11),
              ::testing::ElementsAre("irq_handler_entry", "softirq_raise", "irq_handler_exit",
                                     "softirq_entry", "softirq_exit", "softirq_raise",
                                     "sched_switch", "gap", "softirq_entry", "softirq_exit",
                                     "sched_waking"));
  ASSERT_EQ(t.context.missed.size(), 2u);
  EXPECT_EQ(t.context.missed[0].cpu, 0);
  EXPECT_EQ(t.context.missed[0].count, -1);  // "CPU:0 [LOST EVENTS]"
  EXPECT_EQ(t.context.missed[0].ts_ns, 100'005'000'000);
  EXPECT_EQ(t.context.missed[0].last_before_ns, 100'000'210'000);
  EXPECT_EQ(t.context.missed[1].cpu, 1);
  EXPECT_EQ(t.context.missed[1].count, 3);
  EXPECT_EQ(t.context.missed[1].ts_ns, 100'009'000'000);

  std::vector<uint16_t> states;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kSchedSwitch && e.ts_ns >= 100'010'000'000) {
      states.push_back(e.sched_switch.prev_state);
    }
  }
  EXPECT_THAT(states, ::testing::ElementsAre(
                          kStateDead, kStateUnknown, kStateUnknown, kStateUnknown, kStateParked, kStateIdle, kStateDead,
                          kStateZombie, kStateStopped, kStateTraced, kStatePreempted,
                          kStateUninterruptible, kStateInterruptible, kStateIdle, 0,
                          kStateUnknown));
  EXPECT_FALSE(IsRunnableState(kStateUnknown));
  EXPECT_EQ(TaskStateLetters(kStateUnknown), "?");

  // No pair across a gap: the TIMER raise before "[LOST EVENTS]" does not pair with the entry
  // after it, and the NET_RX that ran at IRQ exit on CPU 1 is there despite the stacks.
  nlohmann::json report = AnalysesOf(TestData("text/kernel-6.12-stacktrace-lost-states.txt"));
  bool saw_net_rx = false;
  for (const auto& row : report["softirq_latency"]) {
    if (row["name"] == "TIMER") {
      EXPECT_EQ(row["count"], 0) << row.dump();
    }
    if (row["name"] == "NET_RX") {
      saw_net_rx = true;
      EXPECT_EQ(row["count"], 1);
      EXPECT_EQ(row["max_ns"], 10'000);
      EXPECT_EQ(row["ran_in"].dump(), R"({"irq_exit":1})");
    }
  }
  EXPECT_TRUE(saw_net_rx);
  // The wakeup of irq/30-eth0 before "[LOST 3 EVENTS]" is not paired with its switch-in after.
  ASSERT_EQ(report["rt_wake_latency"].size(), 1u);
  EXPECT_EQ(report["rt_wake_latency"][0]["pid"], 190);
  EXPECT_EQ(report["rt_wake_latency"][0]["count"], 0);
  EXPECT_EQ(report["rt_wake_latency"][0]["dropped"], 1);
}

// trace-cmd's form of the same: "kernel_stack: <stack trace >" events and "=> f (addr)".
TEST(StoredTextForms, TraceCmdKernelStackEventsAreNoEvents) {
  Loaded t;
  LoadText("trace-cmd-stacktrace.txt", &t);
  EXPECT_EQ(t.context.meta.skipped_lines, 0) << ::testing::PrintToString(t.context.meta.warnings);
  EXPECT_EQ(t.context.meta.stack_records, 5);
  ASSERT_EQ(t.events.size(), 5u);
  EXPECT_EQ(t.events[3].kind, EventKind::kSoftirqEntry);
  nlohmann::json report = AnalysesOf(TestData("text/trace-cmd-stacktrace.txt"));
  ASSERT_EQ(report["softirq_latency"].size(), 1u);
  EXPECT_EQ(report["softirq_latency"][0]["ran_in"].dump(), R"({"irq_exit":1})");
}

}  // namespace
}  // namespace napiscope
