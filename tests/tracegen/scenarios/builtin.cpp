#include "tracegen/scenarios/builtin.h"

#include <fstream>
#include <map>

#include <absl/strings/str_cat.h>

namespace napiscope::tracegen {

const std::vector<BuiltinScenario>& BuiltinScenarios() {
  static const std::vector<BuiltinScenario> kScenarios = {
      {"irq_threads_bouncing",
       "IRQ threads irq/354-4848400 and irq/355-4848400 woken from hard IRQs on CPU0 and run "
       "alternately on CPU1 and CPU0: every activation migrates, half are cross-CPU",
       BuildIrqThreadsBouncing},
      {"irq_threads_pinned",
       "The same IRQs and threads with the threads pinned to CPU0, the CPU of their hard IRQ",
       BuildIrqThreadsPinned},
      {"ksoftirqd_blocked",
       "PREEMPT_RT: ksoftirqd/0 blocks in D on the softirq lock held by iperf3 (PI-boosted), "
       "iperf3 in NET_RX is preempted by rcuc/0, TIMER and SCHED wait, CPU0 idles with SCHED "
       "pending and SCHED runs 3.99 ms after its raise",
       BuildKsoftirqdBlocked},
      {"softirq_contexts",
       "Softirq raises with known raise-to-entry delays processed at hard-IRQ exit, at "
       "local_bh_enable in a task, in an RT IRQ thread, in ksoftirqd and in a threaded-NAPI "
       "kthread",
       BuildSoftirqContexts},
      {"napi_budget",
       "napi_poll exhausting its budget in softirq, in ksoftirqd, in an IRQ thread and in the "
       "napi/eth0-8193 kthread, which is migrated between CPU0 and CPU1",
       BuildNapiBudget},
      {"missed_events_gap",
       "A NET_RX raise whose entry lies beyond a ring-buffer overflow on the same CPU: the "
       "delay is unknown, not the time between the two events",
       BuildMissedEventsGap},
      {"rt_wake_latency",
       "cyclictest (FIFO 98) on CPU1 woken late behind NET_RX at IRQ exit, a non-preemptible "
       "iperf3 and an RT 99 hog; on CPU0 an RT application starves NET_RX and ksoftirqd/0",
       BuildRtWakeLatency},
      {"rt_2_6_26_sirq_threads",
       "2.6.26-rt router: IRQ-16 raises NET_RX for sirq-net-rx/0, both FIFO 50; rtapp (FIFO 60) "
       "holds CPU0 1.5 ms while NET_RX waits; sirq-timer/1 runs TIMER; no uname",
       BuildRt2626SirqThreads},
      {"rt_4_4_irq_threads",
       "4.4-rt am57xx: irq/354-4848400 runs the NET_RX it raised; ktimersoftd/1 runs TIMER, "
       "ksoftirqd/0 runs RCU; no uname",
       BuildRt44IrqThreads},
      {"rt_current_threaded_napi",
       "Current PREEMPT_RT: irq/41-eth1 wakes napi/eth1-8194 (SCHED_OTHER), which rt_hog "
       "(FIFO 10) holds off for 1.2 ms; ktimers/1 runs TIMER",
       BuildRtCurrentThreadedNapi},
  };
  return kScenarios;
}

const BuiltinScenario* FindBuiltinScenario(std::string_view name) {
  for (const BuiltinScenario& scenario : BuiltinScenarios()) {
    if (scenario.name == name) return &scenario;
  }
  return nullptr;
}

absl::Status ExpectedJson(const BuiltinScenario& builtin, const Scenario& scenario,
                          const nlohmann::json& facts, nlohmann::json* expected) {
  std::vector<Event> events;
  absl::Status status = scenario.Resolve(&events);
  if (!status.ok()) return status;
  std::map<std::string, std::vector<int64_t>> per_cpu;
  nlohmann::json missed = nlohmann::json::array();
  int64_t total = 0;
  for (const Event& event : events) {
    if (event.kind == EventKind::kMissedEvents) {
      missed.push_back({{"cpu", event.cpu}, {"ts_ns", event.ts_ns}, {"count", event.missed.count}});
      continue;
    }
    std::vector<int64_t>& counts = per_cpu[std::string(scenario.strings().Get(event.name))];
    counts.resize(scenario.cpus(), 0);
    ++counts[event.cpu];
    ++total;
  }
  nlohmann::json counts = nlohmann::json::object();
  nlohmann::json counts_per_cpu = nlohmann::json::object();
  for (const auto& [name, cpus] : per_cpu) {
    int64_t sum = 0;
    for (int64_t n : cpus) sum += n;
    counts[name] = sum;
    counts_per_cpu[name] = cpus;
  }
  *expected = {
      {"scenario", builtin.name},
      {"summary", builtin.summary},
      {"regenerate", absl::StrCat("napiscope-tracegen --scenario ", std::string(builtin.name),
                                  " -o testdata/scenarios")},
      {"cpus", scenario.cpus()},
      {"events", total},
      {"first_ts_ns", events.empty() ? 0 : events.front().ts_ns},
      {"last_ts_ns", events.empty() ? 0 : events.back().ts_ns},
      {"event_counts", counts},
      {"event_counts_per_cpu", counts_per_cpu},
      {"missed_events", missed},
      {"facts", facts},
  };
  return absl::OkStatus();
}

absl::Status WriteBuiltinScenario(const BuiltinScenario& builtin, const std::string& dir) {
  nlohmann::json facts = nlohmann::json::object();
  std::unique_ptr<Scenario> scenario = builtin.build(&facts);
  std::string stem = absl::StrCat(dir, "/", std::string(builtin.name));
  absl::Status status = scenario->WriteTraceDat(stem + ".dat");
  if (!status.ok()) return status;
  nlohmann::json expected;
  status = ExpectedJson(builtin, *scenario, facts, &expected);
  if (!status.ok()) return status;
  std::ofstream out(stem + ".expected.json", std::ios::binary | std::ios::trunc);
  out << expected.dump(1) << "\n";
  if (!out) return absl::DataLossError(absl::StrCat(stem, ".expected.json: write failed"));
  return absl::OkStatus();
}

}  // namespace napiscope::tracegen
