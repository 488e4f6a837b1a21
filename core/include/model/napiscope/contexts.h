// Execution contexts per CPU: who held each CPU at every moment (task, hard IRQ, softirq,
// NAPI poll), reconstructed from the event stream and handed out as segments and intervals.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event_sink.h"
#include "napiscope/interrupt_id.h"
#include "napiscope/task_class.h"
#include "napiscope/task_classifier.h"

namespace napiscope {

/// What a context frame is.
enum class ContextKind : uint8_t {
  kTask,      ///< a task running at task level (idle included)
  kHardirq,   ///< a hard IRQ handler, an x86 interrupt vector, or an untraced hard IRQ
  kSoftirq,   ///< a softirq vector being processed
  kNapiPoll,  ///< one napi->poll() call, nested in a softirq or a NAPI kthread
};

/// Short stable name ("task", "hardirq", "softirq", "napi_poll").
std::string_view ContextKindName(ContextKind kind);

/// Where a softirq ran.
enum class SoftirqSite : uint8_t {
  kNone,           ///< not a softirq
  kIrqExit,        ///< at hard-IRQ exit, on top of whatever was interrupted
  kTaskBhEnable,   ///< in a task, at local_bh_enable()
  kIrqThread,      ///< in an IRQ thread: irq/N-*, IRQ-N (2.6.x-rt), or one its IRQ woke as such
  kKsoftirqd,      ///< in ksoftirqd/N
  kNapiKthread,    ///< in a threaded-NAPI kthread napi/*
  kSoftirqThread,  ///< in an RT softirq thread: sirq-<vec>/N, softirq-<vec>/N, ktimersoftd/N
  kUnknown,        ///< began before the trace or a gap; where is not known
};

/// Stable name of a site ("irq_exit", "task_bh_enable", "irq_thread", "ksoftirqd",
/// "napi_kthread", "softirq_thread", "unknown", "").
std::string_view SoftirqSiteName(SoftirqSite site);

/// The site of a softirq run at task level in a task of `task_class` (kTaskBhEnable for tasks
/// that do not serve softirqs).
SoftirqSite SoftirqSiteOfTask(TaskClass task_class);

/// The name given to hard-IRQ frames inferred from common_flags.
inline constexpr std::string_view kUntracedIrqName = "untraced hard IRQ";

/// The irq of a hard-IRQ frame known only from common_flags: its entry and exit were not traced
/// (x86 vectors without irq_vectors:*, filtered IRQs). Such frames are named "untraced hard IRQ".
inline constexpr InterruptId kUntracedIrq{};

/// One level of a CPU's context stack.
struct ContextFrame {
  TimestampNs start_ns = 0;   ///< when the frame began, or resumed after its task was switched out
  TimestampNs entered_ns = 0; ///< when the frame first began (before any resume)
  ContextKind kind = ContextKind::kTask;
  SoftirqSite site = SoftirqSite::kNone;
  TaskClass task_class = TaskClass::kOther;  ///< class of the task on the CPU
  uint8_t depth = 0;          ///< 0 for the task, +1 per nested frame
  bool start_known = true;    ///< false when the frame was already running at trace start / gap
  bool resumed = false;       ///< true when start_ns is a resume, not the first start
  bool inferred = false;      ///< a hard IRQ seen only in common_flags (kUntracedIrq)
  uint16_t cpu = 0;
  int16_t prio = -1;          ///< kernel priority of the task on the CPU, -1 unknown
  int32_t pid = 0;            ///< the task on the CPU (for every kind)
  InterruptId irq;            ///< hard IRQ: the device IRQ or x86 vector (-1: kUntracedIrq)
  uint32_t vec = 0;           ///< softirq vector
  StringId name = 0;          ///< task comm, IRQ handler / vector name, or NAPI device
  uint64_t napi = 0;          ///< napi_struct pointer of a NAPI poll
  int32_t work = 0;           ///< NAPI poll: packets processed
  int32_t budget = 0;         ///< NAPI poll: budget
};

/// A frame from its start to its end (nested frames included in its time).
struct ContextInterval {
  ContextFrame frame;
  TimestampNs end_ns = 0;
  bool end_known = true;   ///< false when closed by a missed-events gap or the end of the trace
  bool suspended = false;  ///< true when it ended because its task was switched out (RT)
};

/// Exclusive time: [start_ns, end_ns) on a CPU belonged to `frame` alone (the top of the stack).
/// Per CPU, segments arrive in time order and tile the CPU's traced time except unknown gaps.
struct CpuSegment {
  TimestampNs start_ns = 0;
  TimestampNs end_ns = 0;
  ContextFrame frame;
};

/// The bit of `kind` in ContextReads::interval_kinds.
constexpr uint32_t ContextKindBit(ContextKind kind) { return 1u << static_cast<uint32_t>(kind); }

/// What a ContextListener reads: the tracker calls it only for these (unknown time always).
struct ContextReads {
  bool segments = true;           ///< OnSegment
  uint32_t interval_kinds = ~0u;  ///< OnInterval for frames of these kinds (ContextKindBit)
};

/// Receives what the tracker reconstructs.
class ContextListener {
 public:
  virtual ~ContextListener() = default;
  /// What this listener reads, asked once when it is added to a tracker; default everything.
  virtual ContextReads Reads() const { return {}; }
  /// Exclusive time of the top frame of a CPU.
  virtual void OnSegment(const CpuSegment& segment) { (void)segment; }
  /// A frame that ended (NAPI polls are reported here only).
  virtual void OnInterval(const ContextInterval& interval) { (void)interval; }
  /// Time on `cpu` in which events were lost; nothing is known about it. Reported when the
  /// CPU's first event after the gap arrives (from the last event before it).
  virtual void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
    (void)cpu, (void)start_ns, (void)end_ns;
  }
};

/// Counts of things in the stream that did not fit the context model.
struct ContextAnomalies {
  int64_t unmatched_exits = 0;       ///< exit without entry after the trace start was settled
  int64_t frames_closed_by_switch = 0;  ///< hard IRQ / IRQ-exit softirq open at a sched_switch
  int64_t missing_switches = 0;      ///< an event's pid was not the task we had current
  int64_t untraced_hardirqs = 0;     ///< hard IRQs inferred from common_flags alone
};

/// Rebuilds per-CPU context stacks from events. Feed it events first, then query it or read
/// what listeners received. Softirqs run in a task (RT, bh_enable, ksoftirqd) belong to the
/// task and follow it across context switches; hard IRQs and IRQ-exit softirqs belong to the CPU.
class ContextTracker : public EventSink {
 public:
  ContextTracker();
  ~ContextTracker() override;

  /// Adds a listener; it must outlive the tracker. It is called only for what its Reads() says.
  void AddListener(ContextListener* listener);

  void OnBegin(const TraceContext& context) override;
  void OnEvent(const Event& event) override;
  void OnEnd() override;

  /// The frame on top of `cpu` after the last event (a task frame when nothing is nested).
  const ContextFrame& Top(uint16_t cpu) const;

  /// The task current on `cpu`, -1 when unknown.
  int32_t CurrentPid(uint16_t cpu) const;

  /// Softirq frames `pid` is inside on `cpu` (RT: kept while it is switched out); may be empty.
  const std::vector<ContextFrame>& TaskSoftirqFrames(uint16_t cpu, int32_t pid) const;

  /// Softirq frames open on `cpu` after the last event: the CPU's own (IRQ exit) and those of
  /// tasks that entered a softirq there and were switched out inside it (PREEMPT_RT).
  std::vector<ContextFrame> OpenSoftirqFrames(uint16_t cpu) const;

  /// Anomalies seen so far.
  const ContextAnomalies& anomalies() const { return anomalies_; }

  /// The trace context given at OnBegin (nullptr before).
  const TraceContext* trace() const { return trace_; }

 private:
  struct CpuState;
  CpuState& StateOf(const Event& event);
  void Advance(CpuState& cpu, TimestampNs ts);
  void EmitSegment(CpuState& cpu, const CpuSegment& segment);
  void FlushWarmup(CpuState& cpu);
  void CloseInterval(const ContextFrame& frame, TimestampNs end, bool end_known, bool suspended);
  void CloseAll(CpuState& cpu, TimestampNs end);
  void StartTask(CpuState& cpu, int32_t pid, int16_t prio, StringId comm, TimestampNs ts,
                 bool start_known);
  ContextFrame NestedFrame(CpuState& cpu, TimestampNs ts, ContextKind kind);
  void PopAt(std::vector<ContextFrame>& frames, size_t index, TimestampNs ts);
  void PushIrq(CpuState& cpu, const Event& event);
  void PopIrq(CpuState& cpu, const Event& event);
  void PushSoftirq(CpuState& cpu, const Event& event);
  void PopSoftirq(CpuState& cpu, const Event& event);
  void SwitchTask(CpuState& cpu, const Event& event);
  void LearnWarmupPriority(CpuState& cpu, int32_t pid, int16_t prio);
  void LearnSoftirqThread(CpuState& cpu);
  void NapiPoll(CpuState& cpu, const Event& event);
  void Resync(CpuState& cpu, const Event& event);
  void ImplicitFrame(CpuState& cpu, ContextFrame frame, TimestampNs end);
  ContextFrame& MutableTop(CpuState& cpu);
  void Renumber(CpuState& cpu);

  const TraceContext* trace_ = nullptr;
  // The listeners in the order added: all of them (unknown time), those reading segments, and
  // per frame kind those reading its intervals. Most read a few kinds of the many calls.
  static constexpr size_t kContextKinds = static_cast<size_t>(ContextKind::kNapiPoll) + 1;
  std::vector<ContextListener*> listeners_;
  std::vector<ContextListener*> segment_listeners_;
  std::array<std::vector<ContextListener*>, kContextKinds> interval_listeners_;
  std::vector<CpuState> cpus_;
  void DropFramesElsewhere(int32_t pid, uint16_t cpu);
  void InferHardirq(CpuState& cpu, const Event& event);
  void CloseUntracedIrq(CpuState& cpu, TimestampNs ts);
  StringId IdleName(uint16_t cpu) const;
  void RenameTask(CpuState& cpu, int32_t pid, StringId comm);
  SoftirqSite NapiPollSite(const CpuState& cpu, const ContextFrame& top, const Event& event) const;

  absl::flat_hash_map<uint64_t, std::vector<ContextFrame>> task_frames_;  // by (cpu, pid)
  std::vector<StringId> idle_names_;  // swapper/N per CPU
  TaskClassifier classifier_;         // the class of the task each switch starts
  StringId untraced_irq_name_ = 0;
  bool flags_seen_ = false;  // some event carried common_flags bits
  ContextAnomalies anomalies_;
};

}  // namespace napiscope
