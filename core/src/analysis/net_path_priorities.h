// The network path's priorities: for each NIC IRQ, which thread served its hard IRQ and which
// ran its NET_RX (or polled its NAPI), at what priority, and which RT tasks ran beside them.
#pragma once

#include <map>
#include <set>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/contexts.h"
#include "napiscope/findings.h"
#include "napiscope/net_path.h"
#include "napiscope/report.h"
#include "napiscope/thresholds.h"

namespace napiscope::internal {

/// Builds the chain hard IRQ -> IRQ thread -> NET_RX runner per IRQ; reads the tracker's state
/// at each event (add it after the tracker) and its segments (add it as a listener).
class NetPathPriorities : public EventSink, public ContextListener {
 public:
  NetPathPriorities(const ContextTracker* tracker, const AnalysisWindow& window);

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  void OnSegment(const CpuSegment& segment) override;

  /// One row per IRQ whose NET_RX or NAPI work was seen running, by IRQ number.
  std::vector<NetPathRow> Rows() const;

 private:
  struct Runner {
    int64_t runs = 0;
    int64_t busy_ns = 0;
    std::set<int> cpus;
  };
  struct Chain {
    StringId handler = 0;
    std::set<int> irq_cpus;
    int64_t hardirqs = 0;
    int32_t irq_thread = -1;
    int64_t irq_thread_runs = 0;
    std::map<int32_t, Runner> runners;  // pid (-1: hard-IRQ exit) -> runs
    int64_t waits = 0;
    int64_t waited_ns = 0;
    std::map<int32_t, int64_t> held_by_rt;  // RT pid -> ns it held a CPU while work waited
  };
  // Work of a chain waiting on a CPU: a NET_RX raise, or a NAPI thread's wakeup.
  struct Window {
    int32_t irq = -1;
    TimestampNs from_ns = 0;
    int32_t thread = -1;  // NAPI thread woken (-1: NET_RX raise)
    std::map<int32_t, int64_t> rt_ns;  // RT task time on the CPU since from_ns
  };
  struct CpuState {
    std::vector<Window> windows;
    std::map<int32_t, int64_t> rt_run_ns;  // RT pid -> time on this CPU
  };
  struct Seen {
    StringId comm = 0;
    int16_t prio = -1;
    std::set<int> cpus;
  };

  CpuState& Cpu(uint16_t cpu);
  int32_t IrqServedBy(int32_t pid) const;
  void Waking(const Event& event);
  void Raise(const Event& event);
  void Entry(const Event& event);
  void Switch(const Event& event);
  void CloseWindow(CpuState& cpu, size_t index, TimestampNs ts_ns, int32_t runner_pid,
                   int16_t runner_prio);
  NetPathThread ThreadOf(int32_t pid, std::string_view role, int64_t runs) const;

  const ContextTracker* tracker_;
  AnalysisWindow window_;
  const TraceContext* context_ = nullptr;
  std::map<int32_t, Chain> chains_;
  absl::flat_hash_map<int32_t, int32_t> irq_of_thread_;  // IRQ / NAPI thread -> its IRQ
  absl::flat_hash_map<int32_t, Seen> seen_;
  std::vector<CpuState> cpus_;
};

/// net-path-priority findings: a chain starved by RT tasks, or an IRQ thread and its NET_RX
/// thread at one priority on one CPU; each with the chrt commands that order the chain.
void NetPathFindings(const std::vector<NetPathRow>& rows, const Thresholds& thresholds,
                     std::vector<Finding>* findings);

}  // namespace napiscope::internal
