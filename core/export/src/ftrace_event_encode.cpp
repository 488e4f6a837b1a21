#include "ftrace_event_encode.h"

#include "perfetto_fields.h"

namespace napiscope::perfetto_export {
namespace {

namespace f = fields;

// Every field is written, zero or not, as the generated classes write every field they set.

// The strings an event's fields hold, looked up once: their sizes bound the event's bytes
// before any is written.
struct Texts {
  std::string_view first, second;
};

// The most bytes an FtraceEvent field takes apart from its strings' bytes: tags, lengths (with
// room for lengths longer than a byte) and varints of at most 10 bytes, for the largest message
// (sched_switch: 9 fields; generic napi_poll: 4 fields of 2-4 fields each).
constexpr size_t kEventBytes = 256;

// The FtraceEvent field (the member of its oneof `event`) that holds `event`, and the strings
// its fields hold.
uint32_t PayloadField(const Event& event, const StringTable& strings, Texts* texts) {
  switch (event.kind) {
    case EventKind::kSchedSwitch:
      texts->first = strings.Get(event.sched_switch.prev_comm);
      texts->second = strings.Get(event.sched_switch.next_comm);
      return f::ftrace::kSchedSwitch;
    case EventKind::kSchedWaking:
      texts->first = strings.Get(event.wake.comm);
      return f::ftrace::kSchedWaking;
    case EventKind::kSchedWakeup:
      texts->first = strings.Get(event.wake.comm);
      return f::ftrace::kSchedWakeup;
    case EventKind::kSchedWakeupNew:
      texts->first = strings.Get(event.wake.comm);
      return f::ftrace::kSchedWakeupNew;
    case EventKind::kSchedMigrateTask:
      texts->first = strings.Get(event.migrate.comm);
      return f::ftrace::kSchedMigrateTask;
    case EventKind::kSchedPiSetprio:
      texts->first = strings.Get(event.pi.comm);
      return f::ftrace::kSchedPiSetprio;
    case EventKind::kSchedProcessFork:
      texts->first = strings.Get(event.fork.child_comm);
      return f::ftrace::kSchedProcessFork;
    case EventKind::kSchedProcessExit:
      texts->first = strings.Get(event.exit.comm);
      return f::ftrace::kSchedProcessExit;
    case EventKind::kIrqHandlerEntry:
      texts->first = strings.Get(event.irq.handler);
      return f::ftrace::kIrqHandlerEntry;
    case EventKind::kIrqHandlerExit:
      return f::ftrace::kIrqHandlerExit;
    case EventKind::kSoftirqRaise:
      return f::ftrace::kSoftirqRaise;
    case EventKind::kSoftirqEntry:
      return f::ftrace::kSoftirqEntry;
    case EventKind::kSoftirqExit:
      return f::ftrace::kSoftirqExit;
    case EventKind::kNetifReceiveSkb:
      texts->first = strings.Get(event.net.dev);
      return f::ftrace::kNetifReceiveSkb;
    case EventKind::kNetDevXmit:
      texts->first = strings.Get(event.net.dev);
      return f::ftrace::kNetDevXmit;
    default:
      break;
  }
  // Perfetto has messages for the local timer's vector alone; the rest are generic events,
  // named, with the fields napiscope decoded.
  texts->first = strings.Get(event.name);
  if (event.kind == EventKind::kIrqVectorEntry && texts->first == "local_timer_entry") {
    return f::ftrace::kLocalTimerEntry;
  }
  if (event.kind == EventKind::kIrqVectorExit && texts->first == "local_timer_exit") {
    return f::ftrace::kLocalTimerExit;
  }
  if (event.kind == EventKind::kNapiPoll) texts->second = strings.Get(event.napi.dev);
  if (event.kind == EventKind::kNetifRx) texts->second = strings.Get(event.net.dev);
  return f::ftrace::kGeneric;
}

[[gnu::always_inline]] inline void GenericField(RawFields& out, std::string_view name,
                                                uint32_t value_field, uint64_t value,
                                                std::string_view str = {}) {
  uint8_t* field = out.BeginNested(f::generic::kField);
  out.String(f::generic::kFieldName, name);
  if (value_field == f::generic::kFieldStrValue) {
    out.String(value_field, str);
  } else {
    out.Varint(value_field, value);
  }
  out.EndNested(field);
}

// Events Perfetto has no message for: napi_poll, netif_rx, x86 vectors other than the local
// timer, and events napiscope only counts (their fields were not decoded).
void Generic(const Event& event, const Texts& texts, RawFields& out) {
  constexpr uint32_t kInt = f::generic::kFieldIntValue;
  constexpr uint32_t kUint = f::generic::kFieldUintValue;
  constexpr uint32_t kStr = f::generic::kFieldStrValue;
  out.String(f::generic::kEventName, texts.first);
  switch (event.kind) {
    case EventKind::kNapiPoll:
      GenericField(out, "napi", kUint, event.napi.napi);
      GenericField(out, "dev_name", kStr, 0, texts.second);
      GenericField(out, "work", kInt, static_cast<uint64_t>(int64_t{event.napi.work}));
      GenericField(out, "budget", kInt, static_cast<uint64_t>(int64_t{event.napi.budget}));
      break;
    case EventKind::kNetifRx:
      GenericField(out, "name", kStr, 0, texts.second);
      GenericField(out, "len", kUint, event.net.len);
      break;
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      GenericField(out, "vector", kInt, static_cast<uint64_t>(int64_t{event.irq.irq}));
      break;
    default:
      break;
  }
}

[[gnu::always_inline]] inline void Wake(const WakeFields& w, const Texts& texts, RawFields& out) {
  out.String(f::sched_wake::kComm, texts.first);
  out.Int(f::sched_wake::kPid, w.pid);
  out.Int(f::sched_wake::kPrio, w.prio);
  out.Int(f::sched_wake::kTargetCpu, w.target_cpu);
}

// Writes the fields of the message `payload_field` stands for.
[[gnu::always_inline]] inline void Payload(uint32_t payload_field, const Event& event,
                                           const Texts& texts, RawFields& p) {
  switch (payload_field) {
    case f::ftrace::kSchedSwitch: {
      namespace m = f::sched_switch;
      const SchedSwitchFields& s = event.sched_switch;
      p.String(m::kPrevComm, texts.first);
      p.Int(m::kPrevPid, s.prev_pid);
      p.Int(m::kPrevPrio, s.prev_prio);
      p.Int(m::kPrevState, s.prev_state);
      p.String(m::kNextComm, texts.second);
      p.Int(m::kNextPid, s.next_pid);
      p.Int(m::kNextPrio, s.next_prio);
      return;
    }
    case f::ftrace::kSchedWaking:
    case f::ftrace::kSchedWakeup:
    case f::ftrace::kSchedWakeupNew:
      Wake(event.wake, texts, p);
      return;
    case f::ftrace::kSchedMigrateTask: {
      namespace m = f::sched_migrate_task;
      p.String(m::kComm, texts.first);
      p.Int(m::kPid, event.migrate.pid);
      p.Int(m::kPrio, event.migrate.prio);
      p.Int(m::kOrigCpu, event.migrate.orig_cpu);
      p.Int(m::kDestCpu, event.migrate.dest_cpu);
      return;
    }
    case f::ftrace::kSchedPiSetprio: {
      namespace m = f::sched_pi_setprio;
      p.String(m::kComm, texts.first);
      p.Int(m::kNewprio, event.pi.new_prio);
      p.Int(m::kOldprio, event.pi.old_prio);
      p.Int(m::kPid, event.pi.pid);
      return;
    }
    case f::ftrace::kSchedProcessFork: {
      namespace m = f::sched_process_fork;
      p.Int(m::kParentPid, event.fork.parent_pid);
      p.String(m::kChildComm, texts.first);
      p.Int(m::kChildPid, event.fork.child_pid);
      return;
    }
    case f::ftrace::kSchedProcessExit: {
      namespace m = f::sched_process_exit;
      p.String(m::kComm, texts.first);
      p.Int(m::kPid, event.exit.pid);
      p.Int(m::kPrio, event.exit.prio);
      return;
    }
    case f::ftrace::kIrqHandlerEntry:
      p.Int(f::irq_handler::kIrq, event.irq.irq);
      p.String(f::irq_handler::kName, texts.first);
      return;
    case f::ftrace::kIrqHandlerExit:
      p.Int(f::irq_handler::kIrq, event.irq.irq);
      p.Int(f::irq_handler::kRet, event.irq.ret);
      return;
    case f::ftrace::kSoftirqRaise:
    case f::ftrace::kSoftirqEntry:
    case f::ftrace::kSoftirqExit:
      p.Varint(f::softirq::kVec, event.softirq.vec);
      return;
    case f::ftrace::kNetifReceiveSkb:
      p.Varint(f::net::kLen, event.net.len);
      p.String(f::net::kName, texts.first);
      return;
    case f::ftrace::kNetDevXmit:
      p.Varint(f::net::kLen, event.net.len);
      p.String(f::net::kName, texts.first);
      p.Int(f::net::kRc, event.net.rc);
      return;
    case f::ftrace::kLocalTimerEntry:
    case f::ftrace::kLocalTimerExit:
      p.Int(f::local_timer::kVector, event.irq.irq);
      return;
    default:
      Generic(event, texts, p);
      return;
  }
}

// The FtraceEvent's fields.
[[gnu::always_inline]] inline void WriteFields(uint32_t payload_field, const Event& event,
                                               const Texts& texts, RawFields& out) {
  out.Varint(f::ftrace::kTimestamp, static_cast<uint64_t>(event.ts_ns));
  out.Varint(f::ftrace::kPid, static_cast<uint32_t>(event.pid));
  // Fields in number order, as protobuf writes them: common_flags (5) after sched_switch (4).
  if (payload_field > f::ftrace::kCommonFlags) out.Varint(f::ftrace::kCommonFlags, event.flags);
  uint8_t* payload = out.BeginNested(payload_field);
  Payload(payload_field, event, texts, out);
  out.EndNested(payload);
  if (payload_field < f::ftrace::kCommonFlags) out.Varint(f::ftrace::kCommonFlags, event.flags);
}

}  // namespace

void EncodeFtraceEvent(const Event& event, const StringTable& strings, ProtoWriter* out) {
  Texts texts;
  uint32_t payload_field = PayloadField(event, strings, &texts);
  RawFields fields = out->Room(kEventBytes + texts.first.size() + texts.second.size());
  WriteFields(payload_field, event, texts, fields);
  out->Commit(fields);
}

void EncodeFtraceEventField(uint32_t field, const Event& event, const StringTable& strings,
                            ProtoWriter* out) {
  Texts texts;
  uint32_t payload_field = PayloadField(event, strings, &texts);
  RawFields fields = out->Room(kEventBytes + texts.first.size() + texts.second.size());
  uint8_t* message = fields.BeginNested(field);
  WriteFields(payload_field, event, texts, fields);
  fields.EndNested(message);
  out->Commit(fields);
}

}  // namespace napiscope::perfetto_export
