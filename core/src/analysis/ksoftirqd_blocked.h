// ksoftirqd switched out in a non-running state while softirqs were pending on its CPU: how
// long, with what pending, who woke it, and the chain of tasks behind the wait.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/contexts.h"
#include "napiscope/producers.h"
#include "napiscope/report.h"
#include "napiscope/scheduling_rows.h"

namespace napiscope::internal {

/// Add to a FanoutSink after `tracker` and `facts`, and as a listener of `facts`: it reads the
/// tracker's open softirq frames (the task holding a CPU's softirq processing on PREEMPT_RT),
/// and the producers' task switches, current tasks and pending softirq masks.
class KsoftirqdBlocked : public EventSink, public FactListener {
 public:
  /// Keeps the first `max_rows` blocked intervals in full; later ones are only counted.
  KsoftirqdBlocked(const ContextTracker* tracker, const FactProducers* facts,
                   const AnalysisWindow& window, size_t max_rows)
      : tracker_(tracker), facts_(facts), window_(window), max_rows_(max_rows) {}

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  void OnEnd() override;
  /// Charges the time a CPU was held to the task that held it, for the intervals open there.
  void OnTaskSwitch(const TaskSwitchFact& change) override;
  /// The latest event of the trace (open intervals end there); it sees only some kinds.
  void NoteLastEvent(TimestampNs ts_ns) { last_ts_ns_ = std::max(last_ts_ns_, ts_ns); }

  /// The intervals, in start order.
  const std::vector<KsoftirqdBlockedRow>& rows() const { return rows_; }
  /// Intervals not kept past the first max_rows.
  int64_t overflow() const { return overflow_; }

 private:
  struct SwitchOut {
    TimestampNs ts_ns = 0;
    int cpu = -1;
    uint16_t state = 0;
    int32_t next_pid = -1;  // who ran after it on that CPU
  };

  void Block(const Event& event);
  void NoteHolderPreempted(const Event& event);
  void Close(KsoftirqdBlockedRow row, TimestampNs end_ns, bool end_known);
  void Chain(KsoftirqdBlockedRow& row, int cpu, TimestampNs ts_ns);
  // A link to `pid`, on `cpu` (-1 unknown) at `ts_ns`.
  ChainLink Link(int32_t pid, int cpu, TimestampNs ts_ns, std::string relation,
                 TimestampNs since) const;
  bool Running(int32_t pid, int* cpu) const;
  std::string ContextOf(uint16_t cpu) const;

  const ContextTracker* tracker_;
  const FactProducers* facts_;
  AnalysisWindow window_;
  size_t max_rows_;
  const TraceContext* context_ = nullptr;
  absl::flat_hash_map<int32_t, KsoftirqdBlockedRow> open_;  // by ksoftirqd pid
  absl::flat_hash_map<int32_t, SwitchOut> last_switch_out_;
  absl::flat_hash_map<int32_t, int16_t> blocked_prio_;  // kernel prio of each blocked ksoftirqd
  std::vector<TimestampNs> switch_in_ns_;               // per CPU: when its current task took it
  absl::flat_hash_map<int32_t, std::map<int32_t, int64_t>> held_;  // ksoftirqd pid -> pid -> ns
  TimestampNs last_ts_ns_ = 0;
  std::vector<KsoftirqdBlockedRow> rows_;
  int64_t overflow_ = 0;
};

}  // namespace napiscope::internal
