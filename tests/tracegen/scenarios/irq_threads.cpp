// docs/definitions.md case 1: forced-threaded IRQs 354/355 whose threads bounce between CPUs, and the
// same with the threads pinned to the CPU of their hard IRQ.
#include <set>

#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {
namespace {

constexpr TimestampNs kStartNs = 1'000'000'000;
constexpr TimestampNs kPeriodNs = 1'000'000;
constexpr int kActivations = 8;
constexpr int32_t kIperf = 1500;
constexpr int kIrqCpu = 0;
constexpr TimestampNs kRemoteSwitchInNs = 10'000;  // idle CPU1 picks the thread up
constexpr TimestampNs kLocalSwitchInNs = 6'000;    // the thread preempts iperf3 on CPU0
constexpr TimestampNs kThreadRunNs = 30'000;

struct IrqThread {
  int irq;
  int32_t pid;
  const char* comm;
  TimestampNs offset_ns;  // within each period
};

constexpr IrqThread kThreads[] = {{354, 181, "irq/354-4848400", 0},
                                  {355, 182, "irq/355-4848400", 400'000}};

std::unique_ptr<Scenario> BuildIrqThreads(bool bouncing, nlohmann::json* facts) {
  auto s = std::make_unique<Scenario>(2);
  s->SetUname("Linux tracegen 6.18.0-rt1 #1 SMP PREEMPT_RT x86_64");
  s->Task(kIperf, "iperf3", 120).Running(kIrqCpu, kIperf);
  nlohmann::json threads = nlohmann::json::array();
  for (const IrqThread& thread : kThreads) {
    s->Task(thread.pid, thread.comm, KernelPrioOfRt(50));
    int last_cpu = kIrqCpu;  // where the thread last ran before the trace
    int cross_cpu = 0, migrations = 0;
    std::set<int> cpus;
    nlohmann::json delays = nlohmann::json::array();
    for (int k = 0; k < kActivations; ++k) {
      TimestampNs t = kStartNs + k * kPeriodNs + thread.offset_ns;
      int target = bouncing && k % 2 == 0 ? 1 : kIrqCpu;
      s->IrqEntry(kIrqCpu, t, thread.irq, "4848400.ethernet");
      if (target != last_cpu) {
        s->Migrate(kIrqCpu, t + 1'000, thread.pid, last_cpu, target);
        ++migrations;
        last_cpu = target;
      }
      s->Waking(kIrqCpu, t + 1'500, thread.pid, target);
      s->Wakeup(kIrqCpu, t + 2'000, thread.pid, target);
      s->IrqExit(kIrqCpu, t + 3'000, thread.irq, /*IRQ_WAKE_THREAD*/ 2);
      TimestampNs delay = target == kIrqCpu ? kLocalSwitchInNs : kRemoteSwitchInNs;
      int32_t displaced = target == kIrqCpu ? kIperf : 0;
      s->Switch(target, t + delay, displaced, target == kIrqCpu ? "R+" : "R", thread.pid);
      s->Switch(target, t + delay + kThreadRunNs, thread.pid, "S", displaced);
      if (target != kIrqCpu) ++cross_cpu;
      cpus.insert(target);
      delays.push_back(delay);
    }
    threads.push_back({{"irq", thread.irq},
                       {"thread_pid", thread.pid},
                       {"thread_comm", thread.comm},
                       {"hard_irq_cpus", {kIrqCpu}},
                       {"activations", kActivations},
                       {"cross_cpu_activations", cross_cpu},
                       {"migrations", migrations},
                       {"thread_cpus", cpus},
                       {"activation_delays_ns", delays}});
  }
  (*facts)["irq_threads"] = threads;
  (*facts)["definitions"] = {
      {"activation", "hard IRQ entry of the thread's irq to the thread's next switch-in"},
      {"cross_cpu_activation", "an activation whose switch-in is on another CPU than the IRQ"},
      {"migrations", "sched_migrate_task events of the thread"}};
  return s;
}

}  // namespace

std::unique_ptr<Scenario> BuildIrqThreadsBouncing(nlohmann::json* facts) {
  return BuildIrqThreads(true, facts);
}

std::unique_ptr<Scenario> BuildIrqThreadsPinned(nlohmann::json* facts) {
  return BuildIrqThreads(false, facts);
}

}  // namespace napiscope::tracegen
