// Where each CPU's traced time went: idle, hard IRQ, softirq per vector, task classes, unknown.
#pragma once

#include <cstdint>
#include <vector>

#include "napiscope/contexts.h"
#include "napiscope/report.h"
#include "napiscope/trace_summary.h"

namespace napiscope::internal {

/// Sums the tracker's exclusive segments per CPU by what held the CPU, clipped to the window;
/// each CPU's span (first to last event) is the trace summary's.
class CpuTime : public ContextListener {
 public:
  explicit CpuTime(const AnalysisWindow& window) : window_(window) {}

  ContextReads Reads() const override { return {true, 0}; }
  void OnSegment(const CpuSegment& segment) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

  /// One row per CPU that had events in `spans` (the trace summary's, by CPU), by cpu.
  std::vector<CpuTimeRow> Rows(const std::vector<CpuEventSpan>& spans) const;

 private:
  CpuTimeRow& Cpu(uint16_t cpu) { return cpu < cpus_.size() ? cpus_[cpu] : Grow(cpu); }
  CpuTimeRow& Grow(uint16_t cpu);
  int64_t Clipped(TimestampNs start_ns, TimestampNs end_ns) const;

  AnalysisWindow window_;
  std::vector<CpuTimeRow> cpus_;  // by CPU, as far as segments went
};

}  // namespace napiscope::internal
