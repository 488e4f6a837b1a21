// Real tracefs `trace` output of a 6.18 kernel (testdata/text), compressed as users keep it.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::TestData;
using ::napiscope::tracegen::CollectingSink;

struct Sample {
  TraceContext context;
  std::vector<Event> events;
  std::map<std::string, int64_t> counts;
};

void LoadSample(const std::string& name, Sample* sample) {
  CollectingSink sink;
  absl::Status status = LoadTrace(TestData("text/" + name), sample->context, sink);
  ASSERT_TRUE(status.ok()) << status;
  sample->events = std::move(sink.events);
  for (const Event& event : sample->events) {
    ++sample->counts[std::string(sample->context.strings.Get(event.name))];
  }
}

// Counted with grep/awk on the uncompressed files when they were recorded.
TEST(KernelTextSamples, IrqInfoLayoutLoadsEveryLine) {
  Sample sample;
  LoadSample("kernel-6.18-irq-info.txt.gz", &sample);
  const TraceMeta& meta = sample.context.meta;
  EXPECT_EQ(meta.format, TraceFormat::kFtraceText);
  EXPECT_EQ(meta.compression, "gzip");
  EXPECT_EQ(meta.cpus, 2);
  EXPECT_EQ(meta.skipped_lines, 0);
  // The kernel's trace file prints microseconds: the one warning says so.
  EXPECT_THAT(meta.warnings, ::testing::ElementsAre(::testing::StartsWith(
                                 "timestamps are printed to 1.0 us: every time and duration")));
  EXPECT_EQ(sample.events.size(), 1676u);
  std::map<std::string, int64_t> want = {{"call_function_single_entry", 22},
                                         {"call_function_single_exit", 22},
                                         {"irq_handler_entry", 1},
                                         {"irq_handler_exit", 1},
                                         {"local_timer_entry", 93},
                                         {"local_timer_exit", 93},
                                         {"napi_poll", 30},
                                         {"net_dev_xmit", 30},
                                         {"netif_receive_skb", 30},
                                         {"netif_rx", 30},
                                         {"reschedule_entry", 41},
                                         {"reschedule_exit", 41},
                                         {"sched_migrate_task", 24},
                                         {"sched_process_exit", 43},
                                         {"sched_process_fork", 45},
                                         {"sched_switch", 318},
                                         {"sched_wakeup", 133},
                                         {"sched_wakeup_new", 45},
                                         {"sched_waking", 133},
                                         {"softirq_entry", 166},
                                         {"softirq_exit", 166},
                                         {"softirq_raise", 169}};
  EXPECT_EQ(sample.counts, want);

  // python3-22947 [001] ..s1. 2997.140005: napi_poll: napi poll on napi struct
  // 00000000b2fce4ef for device (no_device) work 1 budget 64
  auto napi = std::find_if(sample.events.begin(), sample.events.end(),
                           [](const Event& e) { return e.kind == EventKind::kNapiPoll; });
  ASSERT_NE(napi, sample.events.end());
  EXPECT_EQ(napi->ts_ns, 2'997'140'005'000);
  EXPECT_EQ(napi->cpu, 1);
  EXPECT_EQ(napi->pid, 22947);
  EXPECT_EQ(napi->flags, kSoftirq);
  EXPECT_EQ(napi->napi.napi, 0xb2fce4efu);
  EXPECT_EQ(sample.context.strings.Get(napi->napi.dev), "(no_device)");
  EXPECT_EQ(napi->napi.work, 1);
  EXPECT_EQ(napi->napi.budget, 64);

  // python3-22947 [000] d..2. 2996.991332: sched_switch: prev_comm=bash prev_pid=22947
  // prev_prio=120 prev_state=R+ ==> next_comm=migration/0 next_pid=18 next_prio=0
  auto preempted = std::find_if(sample.events.begin(), sample.events.end(), [](const Event& e) {
    return e.kind == EventKind::kSchedSwitch && e.ts_ns == 2'996'991'332'000;
  });
  ASSERT_NE(preempted, sample.events.end());
  EXPECT_EQ(preempted->flags, kIrqsOff);
  EXPECT_EQ(preempted->sched_switch.prev_state, kStatePreempted);
  EXPECT_EQ(preempted->sched_switch.next_pid, 18);
  EXPECT_EQ(preempted->sched_switch.next_prio, 0);
}

TEST(KernelTextSamples, TgidLayoutWithoutIrqInfoLoadsEveryLine) {
  Sample sample;
  LoadSample("kernel-6.18-tgid-no-irq-info.txt.xz", &sample);
  EXPECT_EQ(sample.context.meta.compression, "xz");
  EXPECT_EQ(sample.context.meta.skipped_lines, 0);
  EXPECT_EQ(sample.events.size(), 1313u);
  EXPECT_EQ(sample.counts["sched_switch"], 280);
  EXPECT_EQ(sample.counts["napi_poll"], 10);
  EXPECT_EQ(sample.counts["sched_process_fork"], 41);
  for (const Event& event : sample.events) ASSERT_EQ(event.flags, 0);  // no column, no flags
  // bash-22944 (22944) [001] 2997.189698: sched_process_fork: comm=bash pid=22944
  // child_comm=bash child_pid=22998
  auto fork = std::find_if(sample.events.begin(), sample.events.end(),
                           [](const Event& e) { return e.kind == EventKind::kSchedProcessFork; });
  ASSERT_NE(fork, sample.events.end());
  EXPECT_EQ(fork->ts_ns, 2'997'189'698'000);
  EXPECT_EQ(fork->fork.parent_pid, 22944);
  EXPECT_EQ(fork->fork.child_pid, 22998);
}

}  // namespace
}  // namespace napiscope
