#include "ftrace_event_encode.h"

#include "perfetto_fields.h"

namespace napiscope::perfetto_export {
namespace {

namespace f = fields;

// Every field is written, zero or not, as the generated classes write every field they set.

void GenericField(ProtoWriter* out, std::string_view name, uint32_t value_field, uint64_t value,
                  std::string_view str = {}) {
  ProtoWriter::Nested field = out->BeginNested(f::generic::kField);
  out->String(f::generic::kFieldName, name);
  if (value_field == f::generic::kFieldStrValue) {
    out->String(value_field, str);
  } else {
    out->Varint(value_field, value);
  }
  out->EndNested(field);
}

// Events Perfetto has no message for: napi_poll, netif_rx, x86 vectors other than the local
// timer, and events napiscope only counts (their fields were not decoded).
void Generic(const Event& event, const StringTable& strings, ProtoWriter* out) {
  constexpr uint32_t kInt = f::generic::kFieldIntValue;
  constexpr uint32_t kUint = f::generic::kFieldUintValue;
  constexpr uint32_t kStr = f::generic::kFieldStrValue;
  out->String(f::generic::kEventName, strings.Get(event.name));
  switch (event.kind) {
    case EventKind::kNapiPoll:
      GenericField(out, "napi", kUint, event.napi.napi);
      GenericField(out, "dev_name", kStr, 0, strings.Get(event.napi.dev));
      GenericField(out, "work", kInt, static_cast<uint64_t>(int64_t{event.napi.work}));
      GenericField(out, "budget", kInt, static_cast<uint64_t>(int64_t{event.napi.budget}));
      break;
    case EventKind::kNetifRx:
      GenericField(out, "name", kStr, 0, strings.Get(event.net.dev));
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

void Wake(const WakeFields& w, const StringTable& strings, ProtoWriter* out) {
  out->String(f::sched_wake::kComm, strings.Get(w.comm));
  out->Int(f::sched_wake::kPid, w.pid);
  out->Int(f::sched_wake::kPrio, w.prio);
  out->Int(f::sched_wake::kTargetCpu, w.target_cpu);
}

// The FtraceEvent field (the member of its oneof `event`) that holds `event`.
uint32_t PayloadField(const Event& event, const StringTable& strings) {
  switch (event.kind) {
    case EventKind::kSchedSwitch:
      return f::ftrace::kSchedSwitch;
    case EventKind::kSchedWaking:
      return f::ftrace::kSchedWaking;
    case EventKind::kSchedWakeup:
      return f::ftrace::kSchedWakeup;
    case EventKind::kSchedWakeupNew:
      return f::ftrace::kSchedWakeupNew;
    case EventKind::kSchedMigrateTask:
      return f::ftrace::kSchedMigrateTask;
    case EventKind::kSchedPiSetprio:
      return f::ftrace::kSchedPiSetprio;
    case EventKind::kSchedProcessFork:
      return f::ftrace::kSchedProcessFork;
    case EventKind::kSchedProcessExit:
      return f::ftrace::kSchedProcessExit;
    case EventKind::kIrqHandlerEntry:
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
      return f::ftrace::kNetifReceiveSkb;
    case EventKind::kNetDevXmit:
      return f::ftrace::kNetDevXmit;
    case EventKind::kIrqVectorEntry:
      return strings.Get(event.name) == "local_timer_entry" ? f::ftrace::kLocalTimerEntry
                                                            : f::ftrace::kGeneric;
    case EventKind::kIrqVectorExit:
      return strings.Get(event.name) == "local_timer_exit" ? f::ftrace::kLocalTimerExit
                                                           : f::ftrace::kGeneric;
    default:
      return f::ftrace::kGeneric;
  }
}

// Writes the fields of the message `payload_field` stands for.
void Payload(uint32_t payload_field, const Event& event, const StringTable& strings,
             ProtoWriter* p) {
  switch (payload_field) {
    case f::ftrace::kSchedSwitch: {
      namespace m = f::sched_switch;
      const SchedSwitchFields& s = event.sched_switch;
      p->String(m::kPrevComm, strings.Get(s.prev_comm));
      p->Int(m::kPrevPid, s.prev_pid);
      p->Int(m::kPrevPrio, s.prev_prio);
      p->Int(m::kPrevState, s.prev_state);
      p->String(m::kNextComm, strings.Get(s.next_comm));
      p->Int(m::kNextPid, s.next_pid);
      p->Int(m::kNextPrio, s.next_prio);
      return;
    }
    case f::ftrace::kSchedWaking:
    case f::ftrace::kSchedWakeup:
    case f::ftrace::kSchedWakeupNew:
      Wake(event.wake, strings, p);
      return;
    case f::ftrace::kSchedMigrateTask: {
      namespace m = f::sched_migrate_task;
      p->String(m::kComm, strings.Get(event.migrate.comm));
      p->Int(m::kPid, event.migrate.pid);
      p->Int(m::kPrio, event.migrate.prio);
      p->Int(m::kOrigCpu, event.migrate.orig_cpu);
      p->Int(m::kDestCpu, event.migrate.dest_cpu);
      return;
    }
    case f::ftrace::kSchedPiSetprio: {
      namespace m = f::sched_pi_setprio;
      p->String(m::kComm, strings.Get(event.pi.comm));
      p->Int(m::kNewprio, event.pi.new_prio);
      p->Int(m::kOldprio, event.pi.old_prio);
      p->Int(m::kPid, event.pi.pid);
      return;
    }
    case f::ftrace::kSchedProcessFork: {
      namespace m = f::sched_process_fork;
      p->Int(m::kParentPid, event.fork.parent_pid);
      p->String(m::kChildComm, strings.Get(event.fork.child_comm));
      p->Int(m::kChildPid, event.fork.child_pid);
      return;
    }
    case f::ftrace::kSchedProcessExit: {
      namespace m = f::sched_process_exit;
      p->String(m::kComm, strings.Get(event.exit.comm));
      p->Int(m::kPid, event.exit.pid);
      p->Int(m::kPrio, event.exit.prio);
      return;
    }
    case f::ftrace::kIrqHandlerEntry:
      p->Int(f::irq_handler::kIrq, event.irq.irq);
      p->String(f::irq_handler::kName, strings.Get(event.irq.handler));
      return;
    case f::ftrace::kIrqHandlerExit:
      p->Int(f::irq_handler::kIrq, event.irq.irq);
      p->Int(f::irq_handler::kRet, event.irq.ret);
      return;
    case f::ftrace::kSoftirqRaise:
    case f::ftrace::kSoftirqEntry:
    case f::ftrace::kSoftirqExit:
      p->Varint(f::softirq::kVec, event.softirq.vec);
      return;
    case f::ftrace::kNetifReceiveSkb:
      p->Varint(f::net::kLen, event.net.len);
      p->String(f::net::kName, strings.Get(event.net.dev));
      return;
    case f::ftrace::kNetDevXmit:
      p->Varint(f::net::kLen, event.net.len);
      p->String(f::net::kName, strings.Get(event.net.dev));
      p->Int(f::net::kRc, event.net.rc);
      return;
    case f::ftrace::kLocalTimerEntry:
    case f::ftrace::kLocalTimerExit:
      p->Int(f::local_timer::kVector, event.irq.irq);
      return;
    default:
      Generic(event, strings, p);
      return;
  }
}

}  // namespace

void EncodeFtraceEvent(const Event& event, const StringTable& strings, ProtoWriter* out) {
  uint32_t payload_field = PayloadField(event, strings);
  out->Varint(f::ftrace::kTimestamp, static_cast<uint64_t>(event.ts_ns));
  out->Varint(f::ftrace::kPid, static_cast<uint32_t>(event.pid));
  // Fields in number order, as protobuf writes them: common_flags (5) after sched_switch (4).
  if (payload_field > f::ftrace::kCommonFlags) out->Varint(f::ftrace::kCommonFlags, event.flags);
  ProtoWriter::Nested payload = out->BeginNested(payload_field);
  Payload(payload_field, event, strings, out);
  out->EndNested(payload);
  if (payload_field < f::ftrace::kCommonFlags) out->Varint(f::ftrace::kCommonFlags, event.flags);
}

}  // namespace napiscope::perfetto_export
