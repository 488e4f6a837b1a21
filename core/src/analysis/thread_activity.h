// Activations of IRQ threads, NAPI kthreads and ksoftirqd: where they were woken, where they
// then ran, how long that took, and how often they changed CPU (ping-pong).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/duration_recorder.h"
#include "napiscope/contexts.h"
#include "napiscope/producers.h"
#include "napiscope/scheduling_rows.h"

namespace napiscope::internal {

/// Counts the thread activations and migrations the fact producers derive
/// (docs/definitions.md, "Thread activations") and the runs the tracker reconstructs. Add it
/// as a listener of `facts`, as a listener of the tracker after `facts`, and to a FanoutSink
/// (it counts hard IRQs per CPU from irq_handler_entry).
class ThreadActivity : public EventSink, public ContextListener, public FactListener {
 public:
  ThreadActivity(const FactProducers* facts, const AnalysisWindow& window)
      : facts_(facts), window_(window) {}

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  ContextReads Reads() const override { return {false, ContextKindBit(ContextKind::kTask)}; }
  void OnInterval(const ContextInterval& interval) override;
  void OnThreadActivation(const ThreadActivationFact& activation) override;
  void OnThreadMigration(const ThreadMigrationFact& migration) override;

  /// One row per thread seen: IRQ threads (by IRQ), then ksoftirqd, then NAPI kthreads.
  std::vector<ThreadActivityRow> Rows(TimestampNs span_ns) const;

 private:
  struct Counts {
    int last_run_cpu = -1;
    ThreadActivityRow counts;  // counters filled as facts come; stats added in Rows()
    DurationRecorder same_cpu;
    DurationRecorder cross_cpu;
  };

  const FactProducers* facts_;
  AnalysisWindow window_;
  const TraceContext* context_ = nullptr;
  absl::flat_hash_map<int32_t, Counts> threads_;
  // What irq_handler_entry showed of an IRQ: its entries per CPU in the window, its handler.
  struct HardIrq {
    std::map<int, int64_t> cpus;
    StringId handler = 0;  // the last one named, 0 none
  };
  absl::flat_hash_map<int32_t, HardIrq> hardirqs_;  // by IRQ
};

}  // namespace napiscope::internal
