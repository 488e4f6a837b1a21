// The per-CPU state of the context tracker, shared by its source files (private to core).
#pragma once

#include <vector>

#include "napiscope/contexts.h"

namespace napiscope {

// Per-CPU reconstruction state.
struct ContextTracker::CpuState {
  bool seen = false;         // has a known task (false at start and after a gap)
  bool warm = false;         // a sched_switch settled the stack since the start / last gap
  bool in_irq_tail = false;  // the last context change was a hard IRQ returning to task level
  uint16_t cpu = 0;
  TimestampNs cursor_ns = 0;  // exclusive time is attributed up to here
  TimestampNs last_ts_ns = 0;
  TimestampNs gap_from_ns = -1;  // after a gap: the last event before it, until the next event
  TimestampNs napi_cursor_ns = 0;
  ContextFrame task;                    // depth 0
  std::vector<ContextFrame> irq_frames;  // hard IRQs and IRQ-exit softirqs, bottom first
  std::vector<CpuSegment> warmup;       // held back until warm
};

// True when a raise or wakeup recorded in a CPU's IRQ-exit tail leaves it open: it may be the
// IRQ's own (docs/contexts.md, rule 2). `flags_seen`: the trace has common_flags.
bool LeavesIrqTailOpen(bool flags_seen, const TraceContext* trace, const Event& event);

}  // namespace napiscope
