// What the context tracker infers beyond the events' own meaning: hard IRQs seen only in
// common_flags, names of tasks whose start was not traced, and where a NAPI poll ran when its
// softirq's entry was not seen. The rules are written out in docs/contexts.md.
#include <algorithm>

#include "model/context_cpu_state.h"
#include "napiscope/context_flags.h"

namespace napiscope {
namespace {

bool IsTracedIrqEvent(EventKind kind) {
  return kind == EventKind::kIrqHandlerEntry || kind == EventKind::kIrqHandlerExit ||
         kind == EventKind::kIrqVectorEntry || kind == EventKind::kIrqVectorExit;
}

bool IsHardirqFrame(const ContextFrame& frame) { return frame.kind == ContextKind::kHardirq; }

}  // namespace

// An event recorded in hard-IRQ context while no traced hard IRQ is open on its CPU belongs to
// an interrupt whose entry and exit are not traced (x86 vectors without irq_vectors:*, an IRQ
// filtered out): open a frame for it. It began before this event (start unknown) and ends at
// the CPU's next event recorded outside hard-IRQ context. NMIs come at any time, even inside
// a traced hard IRQ, so their events neither open nor close anything.
void ContextTracker::InferHardirq(CpuState& cpu, const Event& event) {
  if (event.flags != 0) flags_seen_ = true;
  if (InNmi(event.flags)) return;
  bool untraced_open = std::any_of(cpu.irq_frames.begin(), cpu.irq_frames.end(),
                                   [](const ContextFrame& frame) { return frame.inferred; });
  if (!InHardirq(event.flags)) {
    if (untraced_open) CloseUntracedIrq(cpu, event.ts_ns);
    return;
  }
  if (untraced_open || IsTracedIrqEvent(event.kind)) return;
  if (std::any_of(cpu.irq_frames.begin(), cpu.irq_frames.end(), IsHardirqFrame)) return;
  ContextFrame frame = NestedFrame(cpu, event.ts_ns, ContextKind::kHardirq);
  frame.irq = kUntracedIrq;
  frame.name = untraced_irq_name_;
  frame.inferred = true;
  frame.start_known = false;  // it was entered before the first event it recorded
  cpu.irq_frames.push_back(frame);
  Renumber(cpu);
  cpu.in_irq_tail = false;
  cpu.napi_cursor_ns = event.ts_ns;
  ++anomalies_.untraced_hardirqs;
}

// The untraced hard IRQ returned before `ts` (the first event outside it, or a traced IRQ's
// entry: hard IRQs do not nest). What runs next at task level ran at its exit.
void ContextTracker::CloseUntracedIrq(CpuState& cpu, TimestampNs ts) {
  auto found = std::find_if(cpu.irq_frames.begin(), cpu.irq_frames.end(),
                            [](const ContextFrame& frame) { return frame.inferred; });
  if (found == cpu.irq_frames.end()) return;
  Advance(cpu, ts);
  PopAt(cpu.irq_frames, static_cast<size_t>(found - cpu.irq_frames.begin()), ts);
  Renumber(cpu);
  cpu.in_irq_tail = std::none_of(cpu.irq_frames.begin(), cpu.irq_frames.end(), IsHardirqFrame);
  cpu.napi_cursor_ns = ts;
}

// Whether a raise or wakeup recorded after a hard IRQ returned to task level, and before a
// softirq is entered, leaves that IRQ's exit tail open. With flags, the event says: one outside
// hard-IRQ context is the task's. Without flags (text without the irq-info column) the kernel
// says: an IRQ raises its softirqs in its handler, before its exit event, so a raise after it
// is the task's. Between its exit event and the softirqs irq_exit runs, the IRQ wakes only its
// own thread (IRQ_WAKE_THREAD); a wakeup of any other task is the task's (ksoftirqd is woken
// last, when the softirqs run there are done: nothing else runs at that exit after it).
bool LeavesIrqTailOpen(bool flags_seen, const TraceContext* trace, const Event& event) {
  if (flags_seen) return InHardirq(event.flags) || InNmi(event.flags);
  if (event.kind == EventKind::kSoftirqRaise) return false;
  if (trace == nullptr) return true;
  StringId comm = event.wake.comm != 0 ? event.wake.comm
                                       : trace->tasks.CommAt(event.wake.pid, event.ts_ns);
  TaskClass wakee = ClassifyTask(&trace->tasks, event.wake.pid, trace->strings.Get(comm),
                                 event.wake.prio);
  return wakee == TaskClass::kIrqThread;
}

// A task first seen without its switch-in was named from the task table (saved cmdlines may
// hold a later name, after an exec); its switch-out names it as it was then.
void ContextTracker::RenameTask(CpuState& cpu, int32_t pid, StringId comm) {
  if (comm == 0 || cpu.task.pid != pid || cpu.task.start_known || cpu.task.name == comm) return;
  std::string_view text = trace_ ? trace_->strings.Get(comm) : std::string_view();
  TaskClass task_class = ClassifyTask(trace_ ? &trace_->tasks : nullptr, pid, text, cpu.task.prio);
  auto rename = [&](ContextFrame& frame) {
    if (frame.pid != pid) return;
    if (frame.kind == ContextKind::kTask) frame.name = comm;
    frame.task_class = task_class;
  };
  rename(cpu.task);
  for (ContextFrame& frame : cpu.irq_frames) rename(frame);
  for (CpuSegment& segment : cpu.warmup) rename(segment.frame);
}

// Where a NAPI poll ran when no softirq frame is open on top of the CPU.
SoftirqSite ContextTracker::NapiPollSite(const CpuState& cpu, const ContextFrame& top,
                                         const Event& event) const {
  (void)cpu;
  if (top.task_class == TaskClass::kNapiKthread) return SoftirqSite::kNapiKthread;
  // Serving a softirq whose entry was not seen: it began before the CPU's first event or a gap.
  if (InServingSoftirq(event.flags)) return SoftirqSite::kUnknown;
  // Without flags in the trace a softirq begun before the task was first seen looks the same
  // as busy polling; only a task seen from its switch-in can be busy polling for sure.
  if (!flags_seen_ && !top.start_known) return SoftirqSite::kUnknown;
  return SoftirqSite::kNone;  // busy polling (napi_busy_loop) from the task, BH disabled
}

}  // namespace napiscope
