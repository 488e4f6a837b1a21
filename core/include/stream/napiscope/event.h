// The decoded trace event: one fixed-size value type shared by every loader and analysis.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace napiscope {

/// Index of an interned string in a StringTable; 0 is always the empty string.
using StringId = uint32_t;

/// Time in nanoseconds, as the trace clock counts it.
using TimestampNs = int64_t;

/// The events napiscope understands; anything else is kOther and only counted.
enum class EventKind : uint8_t {
  kOther = 0,
  kSchedSwitch,
  kSchedWaking,
  kSchedWakeup,
  kSchedWakeupNew,
  kSchedMigrateTask,
  kSchedPiSetprio,
  kSchedProcessFork,
  kSchedProcessExit,
  kIrqHandlerEntry,
  kIrqHandlerExit,
  kSoftirqRaise,
  kSoftirqEntry,
  kSoftirqExit,
  kNapiPoll,
  kNetifReceiveSkb,
  kNetifRx,
  kNetDevXmit,
  kIrqVectorEntry,  ///< x86 irq_vectors:*_entry (local_timer, reschedule, ...): hard IRQ context
  kIrqVectorExit,   ///< x86 irq_vectors:*_exit
  kMissedEvents,  ///< Synthetic: the ring buffer dropped events on this CPU before this point.
  kCount,
};

static_assert(static_cast<int>(EventKind::kCount) <= 32, "EventKindMask holds one bit per kind");

/// A set of event kinds (bit = 1 << kind).
using EventKindMask = uint32_t;

/// The mask of one kind.
constexpr EventKindMask MaskOf(EventKind kind) {
  return EventKindMask{1} << static_cast<int>(kind);
}

/// The kernel event name of a kind ("sched_switch", from event_schema.h); "" for kOther,
/// kMissedEvents and the irq_vectors kinds (many names).
std::string_view EventKindName(EventKind kind);

/// The kind for a kernel event name, kOther when napiscope does not decode it (any system;
/// EventKindOf in event_schema.h checks the system too).
EventKind EventKindFromName(std::string_view name);

/// For an x86 irq_vectors event name ("local_timer_entry") the vector's name ("local_timer").
std::string_view IrqVectorBaseName(std::string_view event_name);

/// Softirq vectors as numbered by the kernel (include/linux/interrupt.h).
enum SoftirqVector : uint8_t {
  kHi = 0,
  kTimer = 1,
  kNetTx = 2,
  kNetRx = 3,
  kBlock = 4,
  kIrqPoll = 5,
  kTasklet = 6,
  kSched = 7,
  kHrtimer = 8,
  kRcu = 9,
  kSoftirqVectorCount = 10,
};

/// The kernel's name of a softirq vector ("NET_RX"), or "?" when out of range.
std::string_view SoftirqVectorName(uint32_t vec);

/// Bits of the common_flags byte (struct trace_entry, kernels 4.x-6.x).
enum CommonFlag : uint8_t {
  kIrqsOff = 0x01,
  kNeedResched = 0x04,
  kHardirq = 0x08,
  kSoftirq = 0x10,
  kPreemptResched = 0x20,
  kNmi = 0x40,
  kBhOff = 0x80,
};

/// Task states as sched_switch reports them (kernel TASK_REPORT encoding, 4.14+); 0 is running.
enum TaskStateBit : uint16_t {
  kStateInterruptible = 0x01,    ///< S
  kStateUninterruptible = 0x02,  ///< D
  kStateStopped = 0x04,          ///< T
  kStateTraced = 0x08,           ///< t
  kStateDead = 0x10,             ///< X
  kStateZombie = 0x20,           ///< Z
  kStateParked = 0x40,           ///< P
  kStateIdle = 0x80,             ///< I
  kStatePreempted = 0x100,       ///< "+" after R: switched out while runnable by preemption
  kStateUnknown = 0x200,         ///< ? : a state letter napiscope does not know (text input)
};

/// True when a prev_state value means the task stayed runnable (R or R+).
constexpr bool IsRunnableState(uint16_t state) { return (state & (0xff | kStateUnknown)) == 0; }

/// Letters for a prev_state value, as trace-cmd prints them ("R", "R+", "S", "D|W" style).
std::string TaskStateLetters(uint16_t state);

/// Parses trace-cmd/ftrace prev_state letters of any kernel ("R+", "D", "S|W", "D|K", "x");
/// letters it does not know set kStateUnknown. False only for an empty string.
bool ParseTaskStateLetters(std::string_view letters, uint16_t* state);

/// Kernel priority (0-139) to the RT priority chrt shows (1-99), 0 for non-RT.
constexpr int RtPriorityOf(int kernel_prio) { return kernel_prio >= 0 && kernel_prio < 100 ? 99 - kernel_prio : 0; }

/// sched_switch fields.
struct SchedSwitchFields {
  int32_t prev_pid;
  int32_t next_pid;
  int16_t prev_prio;
  int16_t next_prio;
  uint16_t prev_state;  ///< TaskStateBit mask
  StringId prev_comm;
  StringId next_comm;
};

/// sched_waking / sched_wakeup / sched_wakeup_new fields.
struct WakeFields {
  int32_t pid;
  int16_t prio;
  int16_t target_cpu;
  StringId comm;
};

/// sched_migrate_task fields.
struct MigrateFields {
  int32_t pid;
  int16_t prio;
  int16_t orig_cpu;
  int16_t dest_cpu;
  StringId comm;
};

/// sched_pi_setprio fields: the lock holder pid boosted (or restored) from old_prio to new_prio.
struct PiSetprioFields {
  int32_t pid;
  int16_t old_prio;
  int16_t new_prio;
  StringId comm;
};

/// sched_process_fork fields.
struct ForkFields {
  int32_t parent_pid;
  int32_t child_pid;
  StringId child_comm;
};

/// sched_process_exit fields.
struct ExitFields {
  int32_t pid;
  int16_t prio;
  StringId comm;
};

/// irq_handler_entry (handler set) and irq_handler_exit (ret set) fields; for irq_vectors
/// events irq is the vector number and handler the vector's name ("local_timer").
struct IrqFields {
  int32_t irq;
  int32_t ret;
  StringId handler;
};

/// softirq_raise / softirq_entry / softirq_exit fields.
struct SoftirqFields {
  uint32_t vec;
};

/// napi:napi_poll fields; dev is "(no_device)" for the per-CPU backlog.
struct NapiPollFields {
  uint64_t napi;
  StringId dev;
  int32_t work;
  int32_t budget;
};

/// net:netif_receive_skb / netif_rx / net_dev_xmit fields.
struct NetFields {
  StringId dev;
  uint32_t len;
  int32_t rc;
};

/// Synthetic missed-events marker: how many events the CPU lost before this point (-1 unknown).
struct MissedFields {
  int64_t count;
};

/// One decoded event. Plain value, 48 bytes, never owns memory.
struct Event {
  TimestampNs ts_ns = 0;
  int32_t pid = 0;       ///< common_pid: the task current on the CPU
  uint16_t cpu = 0;
  EventKind kind = EventKind::kOther;
  uint8_t flags = 0;     ///< common_flags (CommonFlag bits)
  StringId name = 0;     ///< interned event name ("sched_switch", "local_timer_entry", ...)
  union {
    SchedSwitchFields sched_switch;
    WakeFields wake;
    MigrateFields migrate;
    PiSetprioFields pi;
    ForkFields fork;
    ExitFields exit;
    IrqFields irq;
    SoftirqFields softirq;
    NapiPollFields napi;
    NetFields net;
    MissedFields missed;
  };

  Event() : napi{} {}
};

/// True when two events have the same common fields and the same fields for their kind
/// (bytes of the union that the kind does not use are ignored).
bool SameEventContent(const Event& a, const Event& b);

}  // namespace napiscope
