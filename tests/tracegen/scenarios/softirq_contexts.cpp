// Softirq raises with known raise-to-entry delays, processed in each context a softirq can
// run in: at hard-IRQ exit, at local_bh_enable in a task, at the end of an RT IRQ thread, in
// ksoftirqd and at local_bh_enable in a threaded-NAPI kthread.
#include <map>

#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {
namespace {

constexpr TimestampNs T = 3'000'000'000;
constexpr TimestampNs kRoundNs = 300'000;
constexpr int kRounds = 3;
constexpr int32_t kIperfRx = 1500, kIperfTx = 1501, kIrqThread = 181, kKsoftirqd3 = 39;
constexpr int32_t kNapiThread = 210;
constexpr int kTimerVector = 236;

// Collects every paired raise and the per-(cpu, vec) aggregate an analysis must report.
class RaiseFacts {
 public:
  void Add(int cpu, int vec, TimestampNs raise, TimestampNs entry, const char* context,
           int32_t pid) {
    raises_.push_back({{"cpu", cpu},
                       {"vec", vec},
                       {"raise_ns", raise},
                       {"entry_ns", entry},
                       {"delay_ns", entry - raise},
                       {"context", context},
                       {"pid", pid}});
    Aggregate& aggregate = aggregates_[{cpu, vec}];
    ++aggregate.count;
    aggregate.max_ns = std::max(aggregate.max_ns, entry - raise);
  }

  void Write(nlohmann::json* facts) const {
    (*facts)["softirq_raises"] = raises_;
    nlohmann::json latency = nlohmann::json::array();
    for (const auto& [key, aggregate] : aggregates_) {
      latency.push_back({{"cpu", key.first},
                         {"vec", key.second},
                         {"count", aggregate.count},
                         {"max_ns", aggregate.max_ns}});
    }
    (*facts)["softirq_latency"] = latency;
  }

 private:
  struct Aggregate {
    int count = 0;
    TimestampNs max_ns = 0;
  };
  nlohmann::json raises_ = nlohmann::json::array();
  std::map<std::pair<int, int>, Aggregate> aggregates_;
};

}  // namespace

std::unique_ptr<Scenario> BuildSoftirqContexts(nlohmann::json* facts) {
  auto s = std::make_unique<Scenario>(4);
  s->SetUname("Linux tracegen 6.18.0-rt1 #1 SMP PREEMPT_RT x86_64");
  s->Task(kIperfRx, "iperf3").Task(kIperfTx, "iperf3").Task(kIrqThread, "irq/354-eth1", 49);
  s->Task(kKsoftirqd3, "ksoftirqd/3").Task(kNapiThread, "napi/eth0-8193");
  s->Running(0, kIperfRx).Running(1, kIperfTx);
  RaiseFacts raises;
  nlohmann::json unpaired = nlohmann::json::array();

  for (int r = 0; r < kRounds; ++r) {
    // CPU0: a non-threaded IRQ raises NET_RX; it runs at irq_exit in the interrupted iperf3.
    TimestampNs t = T + r * kRoundNs;
    TimestampNs entry = t + 3'000 + r * 1'000;
    s->IrqEntry(0, t, 30, "eth0");
    s->SoftirqRaise(0, t + 1'000, kNetRx);
    s->IrqExit(0, t + 2'000, 30);
    s->SoftirqEntry(0, entry, kNetRx);
    s->SoftirqExit(0, entry + 5'000, kNetRx);
    raises.Add(0, kNetRx, t + 1'000, entry, "hardirq_exit", kIperfRx);

    // CPU1: iperf3 raises NET_TX with bottom halves off and runs it at local_bh_enable.
    t = T + 10'000 + r * kRoundNs;
    entry = t + 500 + r * 500;
    s->SoftirqRaise(1, t, kNetTx).Flags(kBhOff);
    s->SoftirqEntry(1, entry, kNetTx);
    s->SoftirqExit(1, entry + 3'000, kNetTx);
    raises.Add(1, kNetTx, t, entry, "task_bh_enable", kIperfTx);

    // CPU2: IRQ 354 wakes its thread; NET_RX raised in the thread runs at the thread's end.
    t = T + 20'000 + r * kRoundNs;
    entry = t + 8'000 + 20'000 + r * 5'000;
    s->IrqEntry(2, t, 354, "eth1");
    s->Waking(2, t + 500, kIrqThread, 2);
    s->Wakeup(2, t + 700, kIrqThread, 2);
    s->IrqExit(2, t + 1'000, 354, 2);
    s->Switch(2, t + 5'000, 0, "R", kIrqThread);
    s->SoftirqRaise(2, t + 8'000, kNetRx).Flags(kBhOff);
    s->SoftirqEntry(2, entry, kNetRx);
    s->SoftirqExit(2, entry + 4'000, kNetRx);
    s->Switch(2, entry + 5'000, kIrqThread, "S", 0);
    raises.Add(2, kNetRx, t + 8'000, entry, "irq_thread", kIrqThread);

    // CPU3: a tick raises TIMER and wakes ksoftirqd/3; a second tick raises TIMER again while
    // it is still pending, which changes nothing and must not be paired.
    t = T + 30'000 + r * kRoundNs;
    entry = t + 500 + 80'000 + r * 20'000;
    s->Vector(3, t, "local_timer_entry", kTimerVector);
    s->SoftirqRaise(3, t + 500, kTimer);
    s->Waking(3, t + 600, kKsoftirqd3, 3);
    s->Wakeup(3, t + 700, kKsoftirqd3, 3);
    s->Vector(3, t + 1'000, "local_timer_exit", kTimerVector);
    s->Vector(3, t + 49'500, "local_timer_entry", kTimerVector);
    s->SoftirqRaise(3, t + 50'000, kTimer);
    s->Vector(3, t + 50'500, "local_timer_exit", kTimerVector);
    unpaired.push_back({{"cpu", 3}, {"vec", kTimer}, {"raise_ns", t + 50'000}});
    s->Switch(3, entry - 5'000, 0, "R", kKsoftirqd3);
    s->SoftirqEntry(3, entry, kTimer);
    s->SoftirqExit(3, entry + 3'000, kTimer);
    s->Switch(3, entry + 4'000, kKsoftirqd3, "S", 0);
    raises.Add(3, kTimer, t + 500, entry, "ksoftirqd", kKsoftirqd3);

    // CPU0 later: threaded NAPI polls with bottom halves off; the NET_TX it raises runs at the
    // kthread's local_bh_enable.
    t = T + 1'000'000 + r * kRoundNs;
    entry = t + 6'000 + 1'000 + r * 1'000;
    s->IrqEntry(0, t, 31, "eth0-napi");
    s->Waking(0, t + 300, kNapiThread, 0);
    s->Wakeup(0, t + 400, kNapiThread, 0);
    s->IrqExit(0, t + 600, 31);
    s->Switch(0, t + 3'000, kIperfRx, "R+", kNapiThread);
    s->NapiPoll(0, t + 5'000, 0xffff888104836000ull, "eth0", 8, 64).Flags(kBhOff);
    s->SoftirqRaise(0, t + 6'000, kNetTx).Flags(kBhOff);
    s->SoftirqEntry(0, entry, kNetTx);
    s->SoftirqExit(0, entry + 2'000, kNetTx);
    s->Switch(0, entry + 3'000, kNapiThread, "S", kIperfRx);
    raises.Add(0, kNetTx, t + 6'000, entry, "napi_thread", kNapiThread);
  }
  raises.Write(facts);
  (*facts)["repeated_raises_not_paired"] = unpaired;
  (*facts)["definitions"] = {
      {"pairing",
       "first raise after the vector was last entered on that CPU, with the next "
       "entry of the vector on that CPU"},
      {"hardirq_exit",
       "entry right after irq_handler_exit, softirq flag set, in the "
       "interrupted task"},
      {"task_bh_enable", "entry in the task that raised with bottom halves disabled"},
      {"irq_thread", "entry inside an irq/N-name thread"},
      {"ksoftirqd", "entry inside ksoftirqd/N"},
      {"napi_thread", "entry inside a napi/<dev>-<id> kthread"}};
  return s;
}

}  // namespace napiscope::tracegen
