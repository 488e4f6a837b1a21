// The network path's priorities: for each NIC IRQ, which thread served its hard IRQ and which
// ran its NET_RX (or polled its NAPI), at what priority, and which RT tasks ran beside them.
#pragma once

#include <map>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/cpu_set.h"
#include "napiscope/contexts.h"
#include "napiscope/facts.h"
#include "napiscope/findings.h"
#include "napiscope/net_path.h"
#include "napiscope/report.h"
#include "napiscope/thresholds.h"

namespace napiscope::internal {

/// Builds the chain hard IRQ -> IRQ thread -> NET_RX runner per IRQ from the fact producers'
/// NET_RX waits and wake-to-run waits, which carry the IRQ each came from (add it as a fact
/// listener), and the tracker's segments (add it as a context listener). Its sink reads only
/// hard IRQs (counts), NAPI polls (polls per NAPI thread) and switches (priorities seen).
class NetPathPriorities : public EventSink, public ContextListener, public FactListener {
 public:
  NetPathPriorities(const ContextTracker* tracker, const AnalysisWindow& window);

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  ContextReads Reads() const override { return {true, 0}; }
  void OnSegment(const CpuSegment& segment) override;
  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override;
  void OnSoftirqWait(const SoftirqWaitFact& wait) override;
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) override;
  void OnWakeQueued(const WakeWaitFact& wait) override;
  void OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                   TimestampNs ts_ns) override;
  void OnWakeRan(const WakeRunFact& run) override;
  void OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) override;

  /// One row per IRQ whose NET_RX or NAPI work was seen running, by IRQ number.
  std::vector<NetPathRow> Rows() const;

 private:
  struct Runner {
    int64_t runs = 0;
    int64_t busy_ns = 0;
    CpuSet cpus;
  };
  struct HeldOnCpu {
    int64_t waits = 0;
    int64_t held_ns = 0;
    std::map<int32_t, int64_t> by_pid;  // RT pid -> ns it held this CPU while work waited
    std::vector<int32_t> runners;       // the runner threads whose runs ended those waits
    int64_t longest_ns = 0;
    TimestampNs longest_from_ns = 0;
    TimestampNs longest_to_ns = 0;
    TimestampNs first_from_ns = 0;
    TimestampNs last_to_ns = 0;
  };
  struct Chain {
    StringId handler = 0;  // irq_handler_entry name, or the x86 vector's (local_timer, ...)
    // An x86 vector fires for much besides the network (every timer tick): its chain's CPUs
    // are those it made network work on, and its hard IRQs its entries there.
    std::vector<int64_t> vector_entries;  // x86 vector: entries by CPU
    CpuSet irq_cpus;
    int64_t hardirqs = 0;
    int32_t irq_thread = -1;
    int64_t irq_thread_runs = 0;
    std::map<int32_t, Runner> runners;  // pid (-1: hard-IRQ exit) -> runs
    int64_t waits = 0;
    int64_t waited_ns = 0;
    std::map<int, HeldOnCpu> held_on_cpu;  // per CPU, the waits RT tasks held there
    int64_t worst_held_ns = 0;             // the wait RT tasks held longest, and when it was
    TimestampNs worst_from_ns = 0;
    TimestampNs worst_to_ns = 0;
  };
  // Work of a chain waiting on a CPU: a NET_RX raise, or a NAPI thread's wakeup.
  struct Window {
    InterruptId irq;
    TimestampNs from_ns = 0;
    TimestampNs since_ns = 0;  // waiting on this CPU since (a move of the NAPI thread's wait)
    uint64_t wait_id = 0;  // the NAPI thread's wake-to-run wait (0: a NET_RX raise)
    // (cpu, RT pid) -> its time on the CPU the work waited on (a NAPI thread's wait can move)
    std::map<std::pair<int, int32_t>, int64_t> rt_ns;
  };
  struct CpuState {
    std::vector<Window> windows;
    std::map<int32_t, int64_t> rt_run_ns;  // RT pid -> time on this CPU
  };
  struct Seen {
    StringId comm = 0;
    int16_t prio = -1;
    CpuSet cpus;
  };

  // Inline: asked at nearly every call; the CPU is nearly always there already.
  CpuState& Cpu(uint16_t cpu) { return cpu < cpus_.size() ? cpus_[cpu] : Grow(cpu); }
  CpuState& Grow(uint16_t cpu);
  // Notes that `runner` (task `pid`, -1 at hard-IRQ exit) ran a chain's work on `cpu`.
  void RanOn(Runner& runner, int32_t pid, int cpu);
  // chains_[irq], found through chain_of_irq_ (one probe, not a walk of the ordered map).
  Chain& ChainOf(InterruptId irq);
  // The index of the CPU's window of the NET_RX raise (wait_id 0) or of wake-to-run wait
  // `wait_id`; -1 when none.
  static int FindWindow(const CpuState& cpu, uint64_t wait_id);
  void NapiPoll(const Event& event);
  // Notes that the work of IRQ `irq` began on `cpu` (an x86 vector's chain lists those CPUs).
  void WorkOf(InterruptId irq, uint16_t cpu);
  void Switch(const Event& event);
  void CloseWindow(uint16_t cpu_index, size_t index, TimestampNs ts_ns, int32_t runner_pid,
                   int16_t runner_prio);
  NetPathThread ThreadOf(int32_t pid, std::string_view role, int64_t runs) const;

  const ContextTracker* tracker_;
  AnalysisWindow window_;
  const TraceContext* context_ = nullptr;
  std::map<InterruptId, Chain> chains_;  // ordered for the rows; IRQ N and vector N apart
  // chains_[irq] by address (a std::map keeps its elements in place): each CPU's hard IRQs
  // take turns, so a cache of the last chain alone missed at nearly every one.
  absl::flat_hash_map<InterruptId, Chain*> chain_of_irq_;
  // NAPI thread -> the IRQ that wakes it.
  absl::flat_hash_map<int32_t, InterruptId> irq_of_napi_thread_;
  absl::flat_hash_map<uint64_t, uint16_t> napi_wait_cpu_;  // open NAPI window -> its CPU
  absl::flat_hash_map<int32_t, Seen> seen_;
  // (pid, cpu) -> the runners of every chain that task ran on that CPU: a NET_RX segment
  // finds the runners to charge with one lookup instead of a search of every chain.
  absl::flat_hash_map<uint64_t, std::vector<Runner*>> runners_on_cpu_;
  std::vector<CpuState> cpus_;
};

/// net-path-priority findings: a chain starved by RT tasks, or an IRQ thread and its NET_RX
/// thread at one priority on one CPU; each with the chrt commands that order the chain.
void NetPathFindings(const std::vector<NetPathRow>& rows, const Thresholds& thresholds,
                     std::vector<Finding>* findings);

}  // namespace napiscope::internal
