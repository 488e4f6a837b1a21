// cyclictest (SCHED_FIFO 98) on CPU1 woken by its timer interrupt and kept waiting by what
// the CPU did first: NET_RX at hard-IRQ exit, a non-preemptible iperf3, an RT 99 hog; and on
// CPU0 an RT application (FIFO 89) that starves NET_RX and ksoftirqd/0 for 2.5 ms
// (docs/definitions.md case 3).
#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {
namespace {

constexpr int kTimerVector = 236;  // x86 LOCAL_TIMER_VECTOR

nlohmann::json Task(int32_t pid, int64_t time_ns) {
  return {{"kind", "task"}, {"pid", pid}, {"time_ns", time_ns}};
}

nlohmann::json Hardirq(int irq, int64_t time_ns) {
  return {{"kind", "hardirq"}, {"irq", irq}, {"time_ns", time_ns}};
}

nlohmann::json Softirq(int vec, int64_t time_ns) {
  return {{"kind", "softirq"}, {"vec", vec}, {"time_ns", time_ns}};
}

}  // namespace

std::unique_ptr<Scenario> BuildRtWakeLatency(nlohmann::json* facts) {
  constexpr TimestampNs T = 5'000'000'000;
  constexpr int32_t kIperf = 1500, kCyclictest = 1600, kHog = 1700, kRtApp = 1800;
  constexpr int32_t kKsoftirqd0 = 15;
  constexpr int kEthIrq = 31;
  auto s = std::make_unique<Scenario>(2);
  s->Task(kIperf, "iperf3")
      .Task(kCyclictest, "cyclictest", KernelPrioOfRt(98))
      .Task(kHog, "rt_hog", KernelPrioOfRt(99))
      .Task(kRtApp, "rt_app", KernelPrioOfRt(89))
      .Task(kKsoftirqd0, "ksoftirqd/0")
      .Running(0, kRtApp)
      .Running(1, kIperf);
  nlohmann::json wakeups = nlohmann::json::array();
  auto timer_wakeup = [&](TimestampNs at, TimestampNs waking, TimestampNs exit) {
    s->Vector(1, at, "local_timer_entry", kTimerVector);
    s->Waking(1, waking, kCyclictest, 1).Flags(kHardirq);
    s->Vector(1, exit, "local_timer_exit", kTimerVector);
  };

  // 1: the timer interrupt raises NET_RX too, which runs at its exit for 50 us; then iperf3
  // keeps the CPU 1 us more before the switch.
  timer_wakeup(T, T + 1'000, T + 2'000);
  s->SoftirqRaise(1, T + 1'500, kNetRx).Flags(kHardirq);
  s->SoftirqEntry(1, T + 2'000, kNetRx);
  s->SoftirqExit(1, T + 52'000, kNetRx);
  s->Switch(1, T + 53'000, kIperf, "R+", kCyclictest);
  s->Switch(1, T + 60'000, kCyclictest, "S", kIperf);
  wakeups.push_back({{"pid", kCyclictest}, {"cpu", 1}, {"waking_ns", T + 1'000},
                     {"switch_in_ns", T + 53'000}, {"latency_ns", 52'000},
                     {"blame", {Softirq(kNetRx, 50'000), Hardirq(kTimerVector, 1'000),
                                Task(kIperf, 1'000)}}});

  // 2: iperf3 does not give the CPU up for 4 us after the interrupt.
  timer_wakeup(T + 300'000, T + 300'500, T + 301'000);
  s->Switch(1, T + 305'000, kIperf, "R+", kCyclictest);
  s->Switch(1, T + 310'000, kCyclictest, "S", kIperf);
  wakeups.push_back({{"pid", kCyclictest}, {"cpu", 1}, {"waking_ns", T + 300'500},
                     {"switch_in_ns", T + 305'000}, {"latency_ns", 4'500},
                     {"blame", {Task(kIperf, 4'000), Hardirq(kTimerVector, 500)}}});

  // 3: rt_hog (FIFO 99), woken from CPU0, holds CPU1 for 149.6 us of cyclictest's wait.
  s->Waking(0, T + 500'000, kHog, 1);
  s->Switch(1, T + 500'100, kIperf, "R+", kHog);
  wakeups.push_back({{"pid", kHog}, {"cpu", 1}, {"waking_ns", T + 500'000},
                     {"switch_in_ns", T + 500'100}, {"latency_ns", 100},
                     {"blame", {Task(kIperf, 100)}}});
  timer_wakeup(T + 600'000, T + 600'200, T + 600'400);
  s->Switch(1, T + 750'000, kHog, "S", kCyclictest);
  s->Switch(1, T + 760'000, kCyclictest, "S", kIperf);
  wakeups.push_back({{"pid", kCyclictest}, {"cpu", 1}, {"waking_ns", T + 600'200},
                     {"switch_in_ns", T + 750'000}, {"latency_ns", 149'800},
                     {"blame", {Task(kHog, 149'600), Hardirq(kTimerVector, 200)}}});

  // CPU0: eth0's interrupt raises NET_RX and wakes ksoftirqd/0; rt_app keeps the CPU 2.5 ms.
  s->IrqEntry(0, T + 100'000, kEthIrq, "eth0");
  s->SoftirqRaise(0, T + 100'200, kNetRx).Flags(kHardirq);
  s->Waking(0, T + 100'300, kKsoftirqd0, 0).Flags(kHardirq);
  s->IrqExit(0, T + 100'500, kEthIrq);
  s->Switch(0, T + 2'600'000, kRtApp, "S", kKsoftirqd0);
  s->SoftirqEntry(0, T + 2'601'000, kNetRx);
  s->SoftirqExit(0, T + 2'611'000, kNetRx);
  s->Switch(0, T + 2'612'000, kKsoftirqd0, "S", 0);
  wakeups.push_back({{"pid", kKsoftirqd0}, {"cpu", 0}, {"waking_ns", T + 100'300},
                     {"switch_in_ns", T + 2'600'000}, {"latency_ns", 2'499'700},
                     {"blame", {Task(kRtApp, 2'499'500), Hardirq(kEthIrq, 200)}}});

  (*facts)["wakeups"] = wakeups;
  (*facts)["softirq_starvation"] = {
      {{"victim", "ksoftirqd/0"}, {"pid", kKsoftirqd0}, {"cpu", 0}, {"rt_tasks_ns", 2'499'500}},
      {{"victim", "NET_RX"}, {"vec", kNetRx}, {"cpu", 0}, {"raise_ns", T + 100'200},
       {"delay_ns", 2'500'800}, {"rt_tasks_ns", 2'499'500}}};
  (*facts)["rt_wake_latency_findings"] = {
      {{"pid", kCyclictest}, {"cpu", 1}, {"max_ns", 149'800}, {"main_holder_pid", kHog}}};
  (*facts)["definitions"] = {
      {"wakeups", "sched_waking -> sched_switch to the thread, with the time each holder had "
                  "the CPU the thread was queued on"},
      {"rt_wake_latency_findings", "with the default 100 us threshold"}};
  return s;
}

}  // namespace napiscope::tracegen
