// Where each CPU's traced time went: idle, hard IRQ, softirq per vector, task classes, unknown.
#pragma once

#include <cstdint>
#include <vector>

#include "napiscope/contexts.h"
#include "napiscope/report.h"

namespace napiscope::internal {

/// Sums the tracker's exclusive segments per CPU by what held the CPU, clipped to the window.
/// As an EventSink it finds each CPU's span (first to last event); as a listener it sums time.
class CpuTime : public EventSink, public ContextListener {
 public:
  explicit CpuTime(const AnalysisWindow& window) : window_(window) {}

  void OnEvent(const Event& event) override;
  ContextReads Reads() const override { return {true, 0}; }
  void OnSegment(const CpuSegment& segment) override;
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override;

  /// One row per CPU that had events, by cpu.
  std::vector<CpuTimeRow> Rows() const;

 private:
  struct CpuState {
    bool seen = false;
    CpuTimeRow row;
  };
  // Inline: OnEvent asks for every event, and the CPU is nearly always there already.
  CpuState& Cpu(uint16_t cpu) { return cpu < cpus_.size() ? cpus_[cpu] : Grow(cpu); }
  CpuState& Grow(uint16_t cpu);
  int64_t Clipped(TimestampNs start_ns, TimestampNs end_ns) const;

  AnalysisWindow window_;
  std::vector<CpuState> cpus_;
};

}  // namespace napiscope::internal
