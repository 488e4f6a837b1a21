// docs/definitions.md case 4: NAPI polls that use their whole budget (work == budget, so the instance
// is polled again) in softirq, in ksoftirqd, in an IRQ thread and in a threaded-NAPI kthread
// that the scheduler moves between CPUs.
#include <map>
#include <tuple>

#include <absl/strings/str_format.h>

#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {
namespace {

constexpr TimestampNs T = 4'000'000'000;
constexpr int kBudget = 64;
constexpr int32_t kIperf = 1500, kKsoftirqd0 = 15, kIrqThread = 182, kNapiThread = 210;
constexpr uint64_t kNapiSoftirq = 0xffff888104835800ull;    // eth2, polled in softirq
constexpr uint64_t kNapiIrqThread = 0xffff888104837000ull;  // eth1, polled in irq/355-eth1
constexpr uint64_t kNapiThreaded = 0xffff888104839000ull;   // eth0, napi/eth0-8193

// Adds napi_poll events and sums them per (napi, context, cpu, pid) for the facts.
class Polls {
 public:
  explicit Polls(Scenario* s) : s_(s) {}

  void Poll(int cpu, TimestampNs ts, uint64_t napi, const char* dev, int work, const char* context,
            int32_t pid) {
    EventRef ref = s_->NapiPoll(cpu, ts, napi, dev, work, kBudget);
    // Threaded NAPI polls with bottom halves disabled but outside softirq.
    if (std::string_view(context) == "napi_thread") ref.Flags(kBhOff);
    Sum& sum = sums_[{napi, context, cpu, pid}];
    sum.dev = dev;
    ++sum.polls;
    sum.full += work == kBudget ? 1 : 0;
    sum.work += work;
  }

  nlohmann::json Facts() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [key, sum] : sums_) {
      const auto& [napi, context, cpu, pid] = key;
      out.push_back({{"napi", absl::StrFormat("0x%x", napi)},
                     {"dev", sum.dev},
                     {"context", context},
                     {"cpu", cpu},
                     {"pid", pid},
                     {"polls", sum.polls},
                     {"full_budget_polls", sum.full},
                     {"work", sum.work},
                     {"budget", kBudget}});
    }
    return out;
  }

 private:
  struct Sum {
    std::string dev;
    int polls = 0;
    int full = 0;
    int work = 0;
  };
  Scenario* s_;
  std::map<std::tuple<uint64_t, std::string, int, int32_t>, Sum> sums_;
};

}  // namespace

std::unique_ptr<Scenario> BuildNapiBudget(nlohmann::json* facts) {
  auto s = std::make_unique<Scenario>(2);
  s->Task(kIperf, "iperf3").Task(kKsoftirqd0, "ksoftirqd/0");
  s->Task(kIrqThread, "irq/355-eth1", KernelPrioOfRt(50)).Task(kNapiThread, "napi/eth0-8193");
  s->Running(0, kIperf);
  Polls polls(s.get());

  // CPU0: NET_RX at hard-IRQ exit in iperf3 polls eth2 twice with the full budget, re-raises
  // NET_RX and hands it to ksoftirqd/0, which polls until the queue is empty.
  s->IrqEntry(0, T, 32, "eth2");
  s->SoftirqRaise(0, T + 500, kNetRx);
  s->IrqExit(0, T + 1'000, 32);
  s->SoftirqEntry(0, T + 2'000, kNetRx);
  polls.Poll(0, T + 10'000, kNapiSoftirq, "eth2", 64, "softirq", kIperf);
  polls.Poll(0, T + 20'000, kNapiSoftirq, "eth2", 64, "softirq", kIperf);
  s->SoftirqRaise(0, T + 20'500, kNetRx);
  s->Waking(0, T + 21'000, kKsoftirqd0, 0);
  s->Wakeup(0, T + 21'200, kKsoftirqd0, 0);
  s->SoftirqExit(0, T + 21'500, kNetRx);
  s->Switch(0, T + 25'000, kIperf, "R+", kKsoftirqd0);
  s->SoftirqEntry(0, T + 26'000, kNetRx);
  polls.Poll(0, T + 36'000, kNapiSoftirq, "eth2", 64, "ksoftirqd", kKsoftirqd0);
  polls.Poll(0, T + 40'000, kNapiSoftirq, "eth2", 20, "ksoftirqd", kKsoftirqd0);
  s->SoftirqExit(0, T + 41'000, kNetRx);
  s->Switch(0, T + 42'000, kKsoftirqd0, "S", kIperf);

  // CPU1: IRQ 355's thread polls eth1 in the NET_RX it raised.
  s->IrqEntry(1, T + 100'000, 355, "eth1");
  s->Waking(1, T + 100'500, kIrqThread, 1);
  s->Wakeup(1, T + 100'700, kIrqThread, 1);
  s->IrqExit(1, T + 101'000, 355, 2);
  s->Switch(1, T + 104'000, 0, "R", kIrqThread);
  s->SoftirqRaise(1, T + 105'000, kNetRx).Flags(kBhOff);
  s->SoftirqEntry(1, T + 106'000, kNetRx);
  polls.Poll(1, T + 116'000, kNapiIrqThread, "eth1", 64, "irq_thread", kIrqThread);
  polls.Poll(1, T + 126'000, kNapiIrqThread, "eth1", 64, "irq_thread", kIrqThread);
  polls.Poll(1, T + 131'000, kNapiIrqThread, "eth1", 10, "irq_thread", kIrqThread);
  s->SoftirqExit(1, T + 132'000, kNetRx);
  s->Switch(1, T + 133'000, kIrqThread, "S", 0);

  // napi/eth0-8193 woken by IRQ 33 on CPU0 three times: it runs on CPU0, is moved to CPU1,
  // then back to CPU0, looping while each poll uses the whole budget.
  struct Round {
    TimestampNs start;
    int cpu;
    std::vector<int> work;
  };
  const Round rounds[] = {
      {T + 200'000, 0, {64, 64, 64, 12}}, {T + 300'000, 1, {64, 5}}, {T + 400'000, 0, {64, 30}}};
  int last_cpu = 0, migrations = 0;
  for (const Round& round : rounds) {
    TimestampNs t = round.start;
    s->IrqEntry(0, t, 33, "eth0");
    if (round.cpu != last_cpu) {
      s->Migrate(0, t + 200, kNapiThread, last_cpu, round.cpu);
      ++migrations;
      last_cpu = round.cpu;
    }
    s->Waking(0, t + 300, kNapiThread, round.cpu);
    s->Wakeup(0, t + 400, kNapiThread, round.cpu);
    s->IrqExit(0, t + 600, 33);
    int32_t displaced = round.cpu == 0 ? kIperf : 0;
    s->Switch(round.cpu, t + 3'000, displaced, round.cpu == 0 ? "R+" : "R", kNapiThread);
    TimestampNs poll = t + 10'000;
    for (int work : round.work) {
      polls.Poll(round.cpu, poll, kNapiThreaded, "eth0", work, "napi_thread", kNapiThread);
      poll += 10'000;
    }
    s->Switch(round.cpu, poll, kNapiThread, "S", displaced);
  }

  (*facts)["napi_polls"] = polls.Facts();
  (*facts)["napi_threads"] = {{{"pid", kNapiThread},
                               {"comm", "napi/eth0-8193"},
                               {"dev", "eth0"},
                               {"napi_id", 8193},
                               {"wakeups", 3},
                               {"migrations", migrations},
                               {"cpus", {0, 1}}}};
  (*facts)["definitions"] = {
      {"full_budget_poll", "napi_poll with work == budget: the instance is polled again"},
      {"softirq", "NET_RX run at hard-IRQ exit in the interrupted task"}};
  return s;
}

}  // namespace napiscope::tracegen
