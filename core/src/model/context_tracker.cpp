#include "napiscope/contexts.h"

#include <algorithm>
#include <string>

#include <absl/container/flat_hash_map.h>

#include "model/context_cpu_state.h"
#include "napiscope/context_flags.h"

namespace napiscope {
namespace {

// Segments held back per CPU until its first sched_switch; past this the CPU is taken as settled.
constexpr size_t kMaxWarmupSegments = 1 << 16;

// Softirq frames of a task are keyed by CPU and pid: a task inside a softirq cannot migrate
// (bottom halves disabled, on RT migrate_disable), and every CPU has its own idle task pid 0.
// A frame that seemed to follow its pid to another CPU was one whose exit was lost.
uint64_t TaskKey(int32_t pid, uint16_t cpu) {
  return (static_cast<uint64_t>(cpu) << 32) | static_cast<uint32_t>(pid);
}

// The softirq frames of `pid` on `cpu` in `frames`, end() when none. An empty map (no softirq
// inside a task: the common case off PREEMPT_RT) is not hashed into.
template <typename TaskFrames>
auto FindTaskFrames(TaskFrames& frames, int32_t pid, uint16_t cpu) {
  return frames.empty() ? frames.end() : frames.find(TaskKey(pid, cpu));
}

bool IsIrqEntry(EventKind kind) {
  return kind == EventKind::kIrqHandlerEntry || kind == EventKind::kIrqVectorEntry;
}

}  // namespace

ContextTracker::ContextTracker() = default;
ContextTracker::~ContextTracker() = default;

void ContextTracker::AddListener(ContextListener* listener) {
  ContextReads reads = listener->Reads();
  listeners_.push_back(listener);
  if (reads.segments) segment_listeners_.push_back(listener);
  for (size_t kind = 0; kind < kContextKinds; ++kind) {
    if (reads.interval_kinds & ContextKindBit(static_cast<ContextKind>(kind))) {
      interval_listeners_[kind].push_back(listener);
    }
  }
}

void ContextTracker::OnBegin(const TraceContext& context) {
  trace_ = &context;
  cpus_.assign(std::max(context.meta.cpus, 1), CpuState{});
  for (size_t i = 0; i < cpus_.size(); ++i) cpus_[i].cpu = static_cast<uint16_t>(i);
  // Sinks run on the loader's thread before any event and the context is the loader's own
  // (non-const) object: interning the few names the tracker gives frames is safe here.
  StringTable& strings = const_cast<StringTable&>(context.strings);
  untraced_irq_name_ = strings.Intern(kUntracedIrqName);
  idle_names_.clear();
  for (size_t i = 0; i < cpus_.size(); ++i) {
    idle_names_.push_back(strings.Intern(IdleTaskName(static_cast<int>(i))));
  }
}

// The idle task pid 0 is swapper/N of the CPU it runs on, whatever name the pid had elsewhere.
StringId ContextTracker::IdleName(uint16_t cpu) const {
  return cpu < idle_names_.size() ? idle_names_[cpu] : 0;
}

ContextTracker::CpuState& ContextTracker::StateOf(const Event& event) {
  if (event.cpu >= cpus_.size()) {
    size_t old = cpus_.size();
    cpus_.resize(event.cpu + 1);
    for (size_t i = old; i < cpus_.size(); ++i) cpus_[i].cpu = static_cast<uint16_t>(i);
  }
  CpuState& cpu = cpus_[event.cpu];
  if (!cpu.seen && event.kind != EventKind::kMissedEvents) {
    if (cpu.gap_from_ns >= 0) {  // the gap runs from the last event before it to this one
      for (ContextListener* listener : listeners_) {
        listener->OnUnknownTime(cpu.cpu, cpu.gap_from_ns, event.ts_ns);
      }
      cpu.gap_from_ns = -1;
    }
    const TaskRecord* record = trace_ ? trace_->tasks.Find(event.pid) : nullptr;
    int16_t prio = record ? record->last_prio : -1;
    StringId comm = trace_ ? trace_->tasks.CommAt(event.pid, event.ts_ns) : 0;
    cpu.seen = true;
    cpu.cursor_ns = event.ts_ns;
    cpu.napi_cursor_ns = event.ts_ns;
    StartTask(cpu, event.pid, prio, comm, event.ts_ns, false);
  }
  return cpu;
}

void ContextTracker::StartTask(CpuState& cpu, int32_t pid, int16_t prio, StringId comm,
                               TimestampNs ts, bool start_known) {
  if (pid == 0 && IdleName(cpu.cpu) != 0) comm = IdleName(cpu.cpu);
  cpu.task = ContextFrame{};
  cpu.task.start_ns = ts;
  cpu.task.entered_ns = ts;
  cpu.task.start_known = start_known;
  cpu.task.cpu = cpu.cpu;
  cpu.task.pid = pid;
  cpu.task.prio = prio;
  cpu.task.name = comm;
  cpu.task.task_class = trace_
                            ? classifier_.Classify(&trace_->tasks, pid, comm, trace_->strings, prio)
                            : ClassifyTask(pid, std::string_view(), prio);
  if (pid != 0 && !task_frames_.empty()) DropFramesElsewhere(pid, cpu.cpu);
  auto it = FindTaskFrames(task_frames_, pid, cpu.cpu);
  if (it != task_frames_.end()) {
    for (ContextFrame& frame : it->second) {
      frame.start_ns = ts;
      frame.resumed = true;
      frame.cpu = cpu.cpu;
      frame.prio = prio;
      frame.task_class = cpu.task.task_class;
    }
  }
  Renumber(cpu);
}

// `pid` runs on `cpu` at task level, so it is inside no softirq on another CPU: frames kept
// there lost their exit (a task in a softirq cannot migrate). Their suspended pieces were
// already reported; they must not resume, nor count as open on that CPU.
void ContextTracker::DropFramesElsewhere(int32_t pid, uint16_t cpu) {
  absl::erase_if(task_frames_, [&](const auto& entry) {
    bool stale = static_cast<int32_t>(entry.first & 0xffffffffu) == pid &&
                 static_cast<uint16_t>(entry.first >> 32) != cpu;
    if (stale) anomalies_.unmatched_exits += static_cast<int64_t>(entry.second.size());
    return stale;
  });
}

ContextFrame& ContextTracker::MutableTop(CpuState& cpu) {
  if (!cpu.irq_frames.empty()) return cpu.irq_frames.back();
  auto it = FindTaskFrames(task_frames_, cpu.task.pid, cpu.cpu);
  if (it != task_frames_.end() && !it->second.empty()) return it->second.back();
  return cpu.task;
}

void ContextTracker::Renumber(CpuState& cpu) {
  uint8_t depth = 1;
  auto it = FindTaskFrames(task_frames_, cpu.task.pid, cpu.cpu);
  if (it != task_frames_.end()) {
    for (ContextFrame& frame : it->second) frame.depth = depth++;
  }
  for (ContextFrame& frame : cpu.irq_frames) frame.depth = depth++;
}

void ContextTracker::EmitSegment(CpuState& cpu, const CpuSegment& segment) {
  if (!cpu.warm) {
    if (cpu.warmup.size() < kMaxWarmupSegments) {
      cpu.warmup.push_back(segment);
      return;
    }
    FlushWarmup(cpu);
    cpu.warm = true;
  }
  for (ContextListener* listener : segment_listeners_) listener->OnSegment(segment);
}

void ContextTracker::FlushWarmup(CpuState& cpu) {
  for (const CpuSegment& segment : cpu.warmup) {
    for (ContextListener* listener : segment_listeners_) listener->OnSegment(segment);
  }
  cpu.warmup.clear();
}

void ContextTracker::Advance(CpuState& cpu, TimestampNs ts) {
  if (ts <= cpu.cursor_ns) return;
  CpuSegment segment{cpu.cursor_ns, ts, MutableTop(cpu)};
  segment.frame.cpu = cpu.cpu;
  EmitSegment(cpu, segment);
  cpu.cursor_ns = ts;
}

void ContextTracker::CloseInterval(const ContextFrame& frame, TimestampNs end, bool end_known,
                                   bool suspended) {
  ContextInterval interval{frame, end, end_known, suspended};
  for (ContextListener* listener : interval_listeners_[static_cast<size_t>(frame.kind)]) {
    listener->OnInterval(interval);
  }
}

// An exit without its entry while the CPU is still settling: the frame was running when the
// trace (or the gap) began, so the task time held back so far was really this frame's.
void ContextTracker::ImplicitFrame(CpuState& cpu, ContextFrame frame, TimestampNs end) {
  frame.start_ns = cpu.task.start_ns;
  frame.entered_ns = cpu.task.start_ns;
  frame.start_known = false;
  frame.cpu = cpu.cpu;
  frame.pid = cpu.task.pid;
  frame.prio = cpu.task.prio;
  frame.task_class = cpu.task.task_class;
  frame.depth = 1;
  if (!cpu.warm) {
    for (CpuSegment& segment : cpu.warmup) {
      if (segment.frame.kind == ContextKind::kTask) segment.frame = frame;
    }
  } else {
    ++anomalies_.unmatched_exits;
  }
  CloseInterval(frame, end, true, false);
}

// A frame nested in the CPU's current task, beginning now; the caller sets its kind's fields.
ContextFrame ContextTracker::NestedFrame(CpuState& cpu, TimestampNs ts, ContextKind kind) {
  Advance(cpu, ts);
  ContextFrame frame = cpu.task;
  frame.start_ns = ts;
  frame.entered_ns = ts;
  frame.start_known = true;
  frame.resumed = false;
  frame.kind = kind;
  return frame;
}

// Closes frames[index] at `ts` and, as lost exits, everything above it.
void ContextTracker::PopAt(std::vector<ContextFrame>& frames, size_t index, TimestampNs ts) {
  for (size_t i = frames.size() - 1; i > index; --i) CloseInterval(frames[i], ts, false, false);
  CloseInterval(frames[index], ts, true, false);
  frames.resize(index);
}

void ContextTracker::PushIrq(CpuState& cpu, const Event& event) {
  CloseUntracedIrq(cpu, event.ts_ns);  // hard IRQs do not nest: the untraced one has ended
  ContextFrame frame = NestedFrame(cpu, event.ts_ns, ContextKind::kHardirq);
  frame.irq = InterruptOf(event);
  frame.name = event.irq.handler;
  cpu.irq_frames.push_back(frame);
  Renumber(cpu);
  cpu.in_irq_tail = false;
  cpu.napi_cursor_ns = event.ts_ns;
}

void ContextTracker::PopIrq(CpuState& cpu, const Event& event) {
  Advance(cpu, event.ts_ns);
  InterruptId irq = InterruptOf(event);
  auto matches = [&](const ContextFrame& frame) {
    return frame.kind == ContextKind::kHardirq && frame.irq == irq &&
           (!irq.x86_vector || frame.name == event.irq.handler);
  };
  auto found = std::find_if(cpu.irq_frames.rbegin(), cpu.irq_frames.rend(), matches);
  if (found == cpu.irq_frames.rend()) {
    ContextFrame frame;
    frame.kind = ContextKind::kHardirq;
    frame.irq = irq;
    frame.name = event.irq.handler;
    if (cpu.irq_frames.empty()) ImplicitFrame(cpu, frame, event.ts_ns);
    else ++anomalies_.unmatched_exits;
  } else {
    PopAt(cpu.irq_frames, cpu.irq_frames.size() - 1 - (found - cpu.irq_frames.rbegin()),
          event.ts_ns);
  }
  cpu.in_irq_tail = std::none_of(cpu.irq_frames.begin(), cpu.irq_frames.end(), [](const auto& f) {
    return f.kind == ContextKind::kHardirq;
  });
  cpu.napi_cursor_ns = event.ts_ns;
}

// The task table may have just seen the running task prove itself a softirq thread with this
// softirq_entry (docs/contexts.md, "threads by behaviour"): the run is that thread's from now on.
void ContextTracker::LearnSoftirqThread(CpuState& cpu) {
  if (trace_ == nullptr || !trace_->tasks.any_softirq_thread_by_behaviour()) return;
  if (cpu.task.task_class != TaskClass::kOther && cpu.task.task_class != TaskClass::kRtTask) return;
  std::string_view comm = trace_->strings.Get(cpu.task.name);
  TaskClass task_class = ClassifyTask(&trace_->tasks, cpu.task.pid, comm, cpu.task.prio);
  if (task_class == cpu.task.task_class) return;
  cpu.task.task_class = task_class;
  auto it = FindTaskFrames(task_frames_, cpu.task.pid, cpu.cpu);
  if (it == task_frames_.end()) return;
  for (ContextFrame& frame : it->second) frame.task_class = task_class;
}

void ContextTracker::PushSoftirq(CpuState& cpu, const Event& event) {
  ContextFrame frame = NestedFrame(cpu, event.ts_ns, ContextKind::kSoftirq);
  frame.vec = event.softirq.vec;
  frame.name = 0;
  bool on_cpu_stack = cpu.in_irq_tail || !cpu.irq_frames.empty();
  if (!on_cpu_stack) {
    LearnSoftirqThread(cpu);
    frame.task_class = cpu.task.task_class;
  }
  frame.site = on_cpu_stack ? SoftirqSite::kIrqExit : SoftirqSiteOfTask(cpu.task.task_class);
  if (on_cpu_stack) {
    cpu.irq_frames.push_back(frame);
  } else {
    task_frames_[TaskKey(cpu.task.pid, cpu.cpu)].push_back(frame);
  }
  Renumber(cpu);
  cpu.in_irq_tail = false;
  cpu.napi_cursor_ns = event.ts_ns;
}

void ContextTracker::PopSoftirq(CpuState& cpu, const Event& event) {
  Advance(cpu, event.ts_ns);
  uint32_t vec = event.softirq.vec;
  auto matches = [vec](const ContextFrame& frame) {
    return frame.kind == ContextKind::kSoftirq && frame.vec == vec;
  };
  cpu.in_irq_tail = false;
  auto on_cpu = std::find_if(cpu.irq_frames.rbegin(), cpu.irq_frames.rend(), matches);
  if (on_cpu != cpu.irq_frames.rend()) {
    PopAt(cpu.irq_frames, cpu.irq_frames.size() - 1 - (on_cpu - cpu.irq_frames.rbegin()),
          event.ts_ns);
    cpu.in_irq_tail = cpu.irq_frames.empty();
  } else {
    std::vector<ContextFrame>& frames = task_frames_[TaskKey(cpu.task.pid, cpu.cpu)];
    auto in_task = std::find_if(frames.rbegin(), frames.rend(), matches);
    if (in_task == frames.rend()) {
      ContextFrame frame;
      frame.kind = ContextKind::kSoftirq;
      frame.vec = vec;
      frame.site = SoftirqSite::kUnknown;
      if (cpu.irq_frames.empty()) ImplicitFrame(cpu, frame, event.ts_ns);
      else ++anomalies_.unmatched_exits;
    } else {
      // Anything still open above it on the CPU lost its exit.
      for (const ContextFrame& stale : cpu.irq_frames) CloseInterval(stale, event.ts_ns, false, false);
      cpu.irq_frames.clear();
      PopAt(frames, frames.size() - 1 - (in_task - frames.rbegin()), event.ts_ns);
    }
    if (frames.empty()) task_frames_.erase(TaskKey(cpu.task.pid, cpu.cpu));
  }
  Renumber(cpu);
  cpu.napi_cursor_ns = event.ts_ns;
}

// The first sched_switch after the start (or a gap) names the priority of the task that ran
// through the warm-up; what was held back learns it before it is handed out.
void ContextTracker::LearnWarmupPriority(CpuState& cpu, int32_t pid, int16_t prio) {
  if (cpu.warm || cpu.task.pid != pid || cpu.task.prio >= 0 || prio < 0) return;
  std::string_view comm = trace_ ? trace_->strings.Get(cpu.task.name) : std::string_view();
  TaskClass task_class = ClassifyTask(trace_ ? &trace_->tasks : nullptr, pid, comm, prio);
  auto learn = [&](ContextFrame& frame) {
    if (frame.pid != pid || frame.prio >= 0) return;
    frame.prio = prio;
    frame.task_class = task_class;
  };
  learn(cpu.task);
  for (ContextFrame& frame : cpu.irq_frames) learn(frame);
  for (CpuSegment& segment : cpu.warmup) learn(segment.frame);
}

void ContextTracker::SwitchTask(CpuState& cpu, const Event& event) {
  const SchedSwitchFields& s = event.sched_switch;
  LearnWarmupPriority(cpu, s.prev_pid, s.prev_prio);
  if (s.prev_pid != 0) RenameTask(cpu, s.prev_pid, s.prev_comm);
  Advance(cpu, event.ts_ns);
  for (const ContextFrame& stale : cpu.irq_frames) {
    CloseInterval(stale, event.ts_ns, false, false);
    ++anomalies_.frames_closed_by_switch;
  }
  cpu.irq_frames.clear();
  auto it = FindTaskFrames(task_frames_, cpu.task.pid, cpu.cpu);
  if (it != task_frames_.end()) {
    for (const ContextFrame& frame : it->second) CloseInterval(frame, event.ts_ns, true, true);
  }
  CloseInterval(cpu.task, event.ts_ns, true, false);
  if (!cpu.warm) {
    FlushWarmup(cpu);
    cpu.warm = true;
  }
  StartTask(cpu, s.next_pid, s.next_prio, s.next_comm, event.ts_ns, true);
  cpu.in_irq_tail = false;
  cpu.napi_cursor_ns = event.ts_ns;
}

void ContextTracker::NapiPoll(CpuState& cpu, const Event& event) {
  const ContextFrame& top = MutableTop(cpu);
  ContextFrame frame = top;
  frame.kind = ContextKind::kNapiPoll;
  frame.depth = static_cast<uint8_t>(top.depth + 1);
  frame.start_ns = std::max(cpu.napi_cursor_ns, top.start_ns);
  frame.entered_ns = frame.start_ns;
  frame.start_known = top.start_known || cpu.napi_cursor_ns > top.start_ns;
  frame.resumed = false;
  if (top.kind != ContextKind::kSoftirq) frame.site = NapiPollSite(cpu, top, event);
  if (frame.site == SoftirqSite::kUnknown) frame.start_known = false;
  frame.name = event.napi.dev;
  frame.napi = event.napi.napi;
  frame.work = event.napi.work;
  frame.budget = event.napi.budget;
  CloseInterval(frame, event.ts_ns, true, false);
  cpu.napi_cursor_ns = event.ts_ns;
}

void ContextTracker::CloseAll(CpuState& cpu, TimestampNs end) {
  Advance(cpu, end);
  FlushWarmup(cpu);
  for (auto it = cpu.irq_frames.rbegin(); it != cpu.irq_frames.rend(); ++it) {
    CloseInterval(*it, end, false, false);
  }
  cpu.irq_frames.clear();
  auto frames = FindTaskFrames(task_frames_, cpu.task.pid, cpu.cpu);
  if (frames != task_frames_.end()) {
    for (auto it = frames->second.rbegin(); it != frames->second.rend(); ++it) {
      CloseInterval(*it, end, false, false);
    }
    task_frames_.erase(frames);
  }
  CloseInterval(cpu.task, end, false, false);
}

// The event says another task is current than the one we tracked: a sched_switch was lost
// without a missed-events marker. Close what we had at the last event, treat the time up to
// this event as unknown, and continue with the task the event names.
void ContextTracker::Resync(CpuState& cpu, const Event& event) {
  ++anomalies_.missing_switches;
  CloseAll(cpu, cpu.last_ts_ns);
  if (event.ts_ns > cpu.last_ts_ns) {
    for (ContextListener* listener : listeners_) {
      listener->OnUnknownTime(cpu.cpu, cpu.last_ts_ns, event.ts_ns);
    }
  }
  cpu.seen = false;
  cpu.warm = false;
  cpu.in_irq_tail = false;
  StateOf(event);
}

void ContextTracker::OnEvent(const Event& event) {
  // Nearly every event comes from a CPU already seen, which StateOf only looks up.
  bool seen =
      event.cpu < cpus_.size() && (cpus_[event.cpu].seen || event.kind == EventKind::kMissedEvents);
  CpuState& cpu = seen ? cpus_[event.cpu] : StateOf(event);
  if (event.kind != EventKind::kMissedEvents && event.pid != cpu.task.pid) Resync(cpu, event);
  if (event.kind != EventKind::kMissedEvents) {
    // Outside hard-IRQ context, with no untraced hard IRQ ever opened, there is none to close.
    if (anomalies_.untraced_hardirqs == 0 && !InHardirq(event.flags)) {
      flags_seen_ = flags_seen_ || event.flags != 0;
    } else {
      InferHardirq(cpu, event);
    }
  }
  switch (event.kind) {
    case EventKind::kMissedEvents:
      if (cpu.seen) {  // unknown time is reported once the CPU's next event ends the gap
        CloseAll(cpu, cpu.last_ts_ns);
        cpu.gap_from_ns = cpu.last_ts_ns;
      }
      cpu.seen = false;
      cpu.warm = false;
      cpu.in_irq_tail = false;
      return;  // last_ts stays at the last real event before the gap
    case EventKind::kSchedSwitch:
      SwitchTask(cpu, event);
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqVectorEntry:
      PushIrq(cpu, event);
      break;
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorExit:
      PopIrq(cpu, event);
      break;
    case EventKind::kSoftirqEntry:
      PushSoftirq(cpu, event);
      break;
    case EventKind::kSoftirqExit:
      PopSoftirq(cpu, event);
      break;
    case EventKind::kNapiPoll:
      NapiPoll(cpu, event);
      cpu.in_irq_tail = false;
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      // A raise or wakeup may be the IRQ's own, or the task's after it (docs/contexts.md).
      if (cpu.in_irq_tail && !LeavesIrqTailOpen(flags_seen_, trace_, event)) {
        cpu.in_irq_tail = false;
      }
      break;
    default:
      if (!IsIrqEntry(event.kind)) cpu.in_irq_tail = false;
      break;
  }
  cpu.last_ts_ns = std::max(cpu.last_ts_ns, event.ts_ns);
}

void ContextTracker::OnEnd() {
  for (CpuState& cpu : cpus_) {
    if (cpu.seen) CloseAll(cpu, cpu.last_ts_ns);
    cpu.seen = false;
  }
}

const ContextFrame& ContextTracker::Top(uint16_t cpu) const {
  static const ContextFrame kNone{};
  if (cpu >= cpus_.size() || !cpus_[cpu].seen) return kNone;
  const CpuState& state = cpus_[cpu];
  if (!state.irq_frames.empty()) return state.irq_frames.back();
  auto it = FindTaskFrames(task_frames_, state.task.pid, cpu);
  if (it != task_frames_.end() && !it->second.empty()) return it->second.back();
  return state.task;
}

int32_t ContextTracker::CurrentPid(uint16_t cpu) const {
  if (cpu >= cpus_.size() || !cpus_[cpu].seen) return -1;
  return cpus_[cpu].task.pid;
}

std::vector<ContextFrame> ContextTracker::OpenSoftirqFrames(uint16_t cpu) const {
  std::vector<ContextFrame> open;
  if (cpu < cpus_.size() && cpus_[cpu].seen) {
    for (const ContextFrame& frame : cpus_[cpu].irq_frames) {
      if (frame.kind == ContextKind::kSoftirq) open.push_back(frame);
    }
  }
  for (const auto& [key, frames] : task_frames_) {
    for (const ContextFrame& frame : frames) {
      if (frame.cpu == cpu && frame.kind == ContextKind::kSoftirq) open.push_back(frame);
    }
  }
  return open;
}

const std::vector<ContextFrame>& ContextTracker::TaskSoftirqFrames(uint16_t cpu,
                                                                  int32_t pid) const {
  static const std::vector<ContextFrame> kEmpty;
  auto it = FindTaskFrames(task_frames_, pid, cpu);
  return it == task_frames_.end() ? kEmpty : it->second;
}

}  // namespace napiscope
