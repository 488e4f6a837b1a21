// The softirq and IRQ threads of three PREEMPT_RT generations (issue 25, DOMAIN.md cases 1 and
// 3): 2.6.26-rt (IRQ-N threads, per-vector sirq-<vec>/N threads), 4.4-rt (irq/N-name threads
// that run the NET_RX they raise, ktimersoftd/N, ksoftirqd) and current RT (irq/N-name,
// threaded NAPI napi/DEV-ID, ktimers/N). Each states where its softirqs ran, the PREEMPT_RT
// verdict and the network path's priority chain.
#include <map>

#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {
namespace {

using nlohmann::json;

// Paired raises and their per-(cpu, vec) aggregate, as softirq_contexts states them.
class Raises {
 public:
  void Add(int cpu, int vec, TimestampNs raise, TimestampNs entry, const char* context,
           int32_t pid) {
    list_.push_back({{"cpu", cpu},
                     {"vec", vec},
                     {"raise_ns", raise},
                     {"entry_ns", entry},
                     {"delay_ns", entry - raise},
                     {"context", context},
                     {"pid", pid}});
    auto& [count, max_ns] = aggregates_[{cpu, vec}];
    ++count;
    max_ns = std::max(max_ns, entry - raise);
  }
  void Write(json* facts) const {
    (*facts)["softirq_raises"] = list_;
    json latency = json::array();
    for (const auto& [key, aggregate] : aggregates_) {
      latency.push_back({{"cpu", key.first},
                         {"vec", key.second},
                         {"count", aggregate.first},
                         {"max_ns", aggregate.second}});
    }
    (*facts)["softirq_latency"] = latency;
  }

 private:
  json list_ = json::array();
  std::map<std::pair<int, int>, std::pair<int, TimestampNs>> aggregates_;
};

}  // namespace

// 2.6.26-rt router: IRQ 16 (eth0) wakes IRQ-16, which raises NET_RX for sirq-net-rx/0; both
// SCHED_FIFO 50 (the default of the time). In the second round rtapp (FIFO 60) holds CPU0 for
// 1.5 ms while NET_RX is pending. The timer IRQ raises TIMER for sirq-timer/1. No uname, as in
// a trace converted from text.
std::unique_ptr<Scenario> BuildRt2626SirqThreads(json* facts) {
  constexpr TimestampNs T = 1'000'000'000, kRoundNs = 2'000'000, kHoldNs = 1'500'000;
  constexpr int32_t kFwd = 1000, kBash = 1100, kIrq16 = 300, kSirqNetRx = 301, kSirqTimer = 311;
  constexpr int32_t kRtApp = 1200;
  auto s = std::make_unique<Scenario>(2);
  s->Task(kFwd, "fwd").Task(kBash, "bash").Task(kIrq16, "IRQ-16", KernelPrioOfRt(50));
  s->Task(kSirqNetRx, "sirq-net-rx/0", KernelPrioOfRt(50));
  s->Task(kSirqTimer, "sirq-timer/1", KernelPrioOfRt(50)).Task(kRtApp, "rtapp", KernelPrioOfRt(60));
  s->Running(0, kFwd).Running(1, kBash);
  Raises raises;
  for (int r = 0; r < 3; ++r) {
    TimestampNs t = T + r * kRoundNs;
    s->IrqEntry(0, t, 16, "eth0");
    s->Waking(0, t + 200, kIrq16, 0);
    s->IrqExit(0, t + 400, 16, 2);
    s->Switch(0, t + 1'000, kFwd, "R+", kIrq16);
    s->SoftirqRaise(0, t + 1'500, kNetRx);
    s->Waking(0, t + 1'600, kSirqNetRx, 0);
    s->Switch(0, t + 2'000, kIrq16, "S", kSirqNetRx);
    TimestampNs entry = t + 2'500;
    if (r == 1) {  // rtapp wakes and preempts the NET_RX thread before it enters NET_RX
      s->Waking(0, t + 2'100, kRtApp, 0);
      s->Switch(0, t + 2'200, kSirqNetRx, "R+", kRtApp);
      s->Switch(0, t + 2'200 + kHoldNs, kRtApp, "S", kSirqNetRx);
      entry = t + 2'200 + kHoldNs + 500;
    }
    s->SoftirqEntry(0, entry, kNetRx);
    s->NapiPoll(0, entry + 1'000, 0xffff88810a000000ull, "eth0", 16, 64);
    s->SoftirqExit(0, entry + 3'000, kNetRx);
    s->Switch(0, entry + 3'500, kSirqNetRx, "S", kFwd);
    raises.Add(0, kNetRx, t + 1'500, entry, "softirq_thread", kSirqNetRx);

    s->IrqEntry(1, t + 100, 0, "timer");
    s->SoftirqRaise(1, t + 200, kTimer);
    s->Waking(1, t + 300, kSirqTimer, 1);
    s->IrqExit(1, t + 400, 0, 1);
    s->Switch(1, t + 1'000, kBash, "R+", kSirqTimer);
    s->SoftirqEntry(1, t + 1'500, kTimer);
    s->SoftirqExit(1, t + 2'500, kTimer);
    s->Switch(1, t + 3'000, kSirqTimer, "S", kBash);
    raises.Add(1, kTimer, t + 200, t + 1'500, "softirq_thread", kSirqTimer);
  }
  raises.Write(facts);
  (*facts)["kernel"] = {{"preempt_rt", "likely"},
                        {"evidence_used", {"rt_softirq_threads", "softirq_sites"}}};
  (*facts)["net_path"] = json::array(
      {{{"irq", 16},
        {"irq_thread_pid", kIrq16},
        {"irq_thread_prio", KernelPrioOfRt(50)},
        {"runner_pid", kSirqNetRx},
        {"runner_prio", KernelPrioOfRt(50)},
        {"runner_role", "softirq_thread"},
        {"runner_runs", 3},
        {"rt_tasks",
         json::array(
             {{{"pid", kRtApp}, {"position", "above"}, {"held_while_waiting_ns", kHoldNs}}})},
        {"same_priority", true},
        {"starved", true},
        {"held_wait", {T + kRoundNs + 1'500, T + kRoundNs + 2'200 + kHoldNs + 500}},
        {"commands", {"chrt -f -p 62 300", "chrt -f -p 61 301"}}}});
  return s;
}

// 4.4-rt am57xx: irq/354-4848400 runs the NET_RX it raised at its end; the timer IRQ raises
// TIMER for ktimersoftd/1 and RCU for ksoftirqd/0. No uname.
std::unique_ptr<Scenario> BuildRt44IrqThreads(json* facts) {
  constexpr TimestampNs T = 2'000'000'000, kRoundNs = 1'000'000;
  constexpr int32_t kIperf = 1500, kBash = 1100, kIrqThread = 181, kKsoftirqd0 = 7;
  constexpr int32_t kKtimersoftd1 = 20;
  auto s = std::make_unique<Scenario>(2);
  s->Task(kIperf, "iperf3").Task(kBash, "bash");
  s->Task(kIrqThread, "irq/354-4848400", KernelPrioOfRt(50)).Task(kKsoftirqd0, "ksoftirqd/0");
  s->Task(kKtimersoftd1, "ktimersoftd/1", KernelPrioOfRt(1));
  s->Running(0, kIperf).Running(1, kBash);
  Raises raises;
  for (int r = 0; r < 3; ++r) {
    TimestampNs t = T + r * kRoundNs;
    s->IrqEntry(0, t, 354, "4848400.ethernet");
    s->Waking(0, t + 200, kIrqThread, 0);
    s->IrqExit(0, t + 400, 354, 2);
    s->Switch(0, t + 1'000, kIperf, "R+", kIrqThread);
    s->SoftirqRaise(0, t + 1'200, kNetRx).Flags(kBhOff);
    s->SoftirqEntry(0, t + 1'500, kNetRx);
    s->NapiPoll(0, t + 2'000, 0xffff88810b000000ull, "eth0", 8, 64);
    s->SoftirqExit(0, t + 3'000, kNetRx);
    s->Switch(0, t + 3'500, kIrqThread, "S", kIperf);
    raises.Add(0, kNetRx, t + 1'200, t + 1'500, "irq_thread", kIrqThread);

    s->IrqEntry(0, t + 5'000, 17, "arch_timer");
    s->SoftirqRaise(0, t + 5'100, kRcu);
    s->Waking(0, t + 5'200, kKsoftirqd0, 0);
    s->IrqExit(0, t + 5'300, 17, 1);
    s->Switch(0, t + 6'000, kIperf, "R+", kKsoftirqd0);
    s->SoftirqEntry(0, t + 6'500, kRcu);
    s->SoftirqExit(0, t + 7'000, kRcu);
    s->Switch(0, t + 7'500, kKsoftirqd0, "S", kIperf);
    raises.Add(0, kRcu, t + 5'100, t + 6'500, "ksoftirqd", kKsoftirqd0);

    s->IrqEntry(1, t + 100, 17, "arch_timer");
    s->SoftirqRaise(1, t + 200, kTimer);
    s->Waking(1, t + 300, kKtimersoftd1, 1);
    s->IrqExit(1, t + 400, 17, 1);
    s->Switch(1, t + 800, kBash, "R+", kKtimersoftd1);
    s->SoftirqEntry(1, t + 1'000, kTimer);
    s->SoftirqExit(1, t + 1'800, kTimer);
    s->Switch(1, t + 2'000, kKtimersoftd1, "S", kBash);
    raises.Add(1, kTimer, t + 200, t + 1'000, "softirq_thread", kKtimersoftd1);
  }
  raises.Write(facts);
  (*facts)["kernel"] = {{"preempt_rt", "likely"},
                        {"evidence_used", {"rt_softirq_threads", "softirq_sites"}}};
  (*facts)["net_path"] = json::array({{{"irq", 354},
                                       {"irq_thread_pid", kIrqThread},
                                       {"irq_thread_prio", KernelPrioOfRt(50)},
                                       {"runner_pid", kIrqThread},
                                       {"runner_prio", KernelPrioOfRt(50)},
                                       {"runner_role", "irq_thread"},
                                       {"runner_runs", 3},
                                       {"rt_tasks", json::array()},
                                       {"same_priority", false},
                                       {"starved", false},
                                       {"held_wait", {0, 0}},
                                       {"commands", json::array()}}});
  return s;
}

// Current RT: IRQ 41 (eth1) wakes irq/41-eth1, which schedules threaded NAPI napi/eth1-8194
// (SCHED_OTHER); in the second round rt_hog (FIFO 10) holds CPU0 for 1.2 ms before the NAPI
// thread runs. The local timer raises TIMER for ktimers/1.
std::unique_ptr<Scenario> BuildRtCurrentThreadedNapi(json* facts) {
  constexpr TimestampNs T = 3'000'000'000, kRoundNs = 3'000'000, kHoldNs = 1'200'000;
  constexpr int32_t kIperf = 1500, kIrqThread = 401, kNapi = 410, kRtHog = 1700, kKtimers1 = 30;
  constexpr int kTimerVector = 236;
  auto s = std::make_unique<Scenario>(2);
  s->SetUname("Linux tracegen 6.18.0-rt1 #1 SMP PREEMPT_RT x86_64");
  s->Task(kIperf, "iperf3").Task(kIrqThread, "irq/41-eth1", KernelPrioOfRt(50));
  s->Task(kNapi, "napi/eth1-8194").Task(kRtHog, "rt_hog", KernelPrioOfRt(10));
  s->Task(kKtimers1, "ktimers/1", KernelPrioOfRt(1));
  s->Running(0, kIperf);
  Raises raises;
  for (int r = 0; r < 3; ++r) {
    TimestampNs t = T + r * kRoundNs;
    s->IrqEntry(0, t, 41, "eth1");
    s->Waking(0, t + 200, kIrqThread, 0);
    s->IrqExit(0, t + 400, 41, 2);
    s->Switch(0, t + 1'000, kIperf, "R+", kIrqThread);
    s->Waking(0, t + 1'200, kNapi, 0);
    TimestampNs napi_in = t + 1'500;
    if (r == 1) {
      s->Waking(0, t + 1'300, kRtHog, 0);
      s->Switch(0, t + 1'500, kIrqThread, "S", kRtHog);
      napi_in = t + 1'500 + kHoldNs;
      s->Switch(0, napi_in, kRtHog, "S", kNapi);
    } else {
      s->Switch(0, napi_in, kIrqThread, "S", kNapi);
    }
    s->NapiPoll(0, napi_in + 2'000, 0xffff88810c000000ull, "eth1", 32, 64).Flags(kBhOff);
    s->Switch(0, napi_in + 3'000, kNapi, "S", kIperf);

    s->Vector(1, t + 100, "local_timer_entry", kTimerVector);
    s->SoftirqRaise(1, t + 200, kTimer);
    s->Waking(1, t + 300, kKtimers1, 1);
    s->Vector(1, t + 400, "local_timer_exit", kTimerVector);
    s->Switch(1, t + 800, 0, "R", kKtimers1);
    s->SoftirqEntry(1, t + 1'000, kTimer);
    s->SoftirqExit(1, t + 1'500, kTimer);
    s->Switch(1, t + 2'000, kKtimers1, "S", 0);
    raises.Add(1, kTimer, t + 200, t + 1'000, "softirq_thread", kKtimers1);
  }
  raises.Write(facts);
  (*facts)["kernel"] = {{"preempt_rt", "yes"}, {"evidence_used", {"uname"}}};
  (*facts)["net_path"] = json::array(
      {{{"irq", 41},
        {"irq_thread_pid", kIrqThread},
        {"irq_thread_prio", KernelPrioOfRt(50)},
        {"runner_pid", kNapi},
        {"runner_prio", 120},
        {"runner_role", "napi_kthread"},
        {"runner_runs", 3},
        {"rt_tasks",
         json::array(
             {{{"pid", kRtHog}, {"position", "between"}, {"held_while_waiting_ns", kHoldNs}}})},
        {"same_priority", false},
        {"starved", true},
        {"held_wait", {T + kRoundNs + 1'200, T + kRoundNs + 1'500 + kHoldNs}},
        {"commands", {"chrt -f -p 11 410"}}}});
  return s;
}

}  // namespace napiscope::tracegen
