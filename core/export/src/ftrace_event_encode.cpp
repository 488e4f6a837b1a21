#include "ftrace_event_encode.h"

#include "perfetto_trace.pb.h"

namespace napiscope::perfetto_export {
namespace {

using perfetto::protos::FtraceEvent;
using perfetto::protos::GenericFtraceEvent;
namespace pp = perfetto::protos;

void GenericField(ProtoBuffer* field, ProtoBuffer* generic, std::string_view name, int value_field,
                  uint64_t value, std::string_view str = {}) {
  field->Clear();
  field->String(GenericFtraceEvent::Field::kNameFieldNumber, name);
  if (value_field == GenericFtraceEvent::Field::kStrValueFieldNumber) {
    field->String(value_field, str);
  } else {
    field->Varint(value_field, value);
  }
  generic->Message(GenericFtraceEvent::kFieldFieldNumber, *field);
}

// Events Perfetto has no message for: napi_poll, netif_rx, x86 vectors other than the local
// timer, and events napiscope only counts (their fields were not decoded).
void Generic(const Event& event, const StringTable& strings, FtraceEncodeScratch* s) {
  constexpr int kInt = GenericFtraceEvent::Field::kIntValueFieldNumber;
  constexpr int kUint = GenericFtraceEvent::Field::kUintValueFieldNumber;
  constexpr int kStr = GenericFtraceEvent::Field::kStrValueFieldNumber;
  ProtoBuffer& g = s->payload;
  g.String(GenericFtraceEvent::kEventNameFieldNumber, strings.Get(event.name));
  switch (event.kind) {
    case EventKind::kNapiPoll:
      GenericField(&s->field, &g, "napi", kUint, event.napi.napi);
      GenericField(&s->field, &g, "dev_name", kStr, 0, strings.Get(event.napi.dev));
      GenericField(&s->field, &g, "work", kInt, static_cast<uint64_t>(int64_t{event.napi.work}));
      GenericField(&s->field, &g, "budget", kInt,
                   static_cast<uint64_t>(int64_t{event.napi.budget}));
      break;
    case EventKind::kNetifRx:
      GenericField(&s->field, &g, "name", kStr, 0, strings.Get(event.net.dev));
      GenericField(&s->field, &g, "len", kUint, event.net.len);
      break;
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      GenericField(&s->field, &g, "vector", kInt, static_cast<uint64_t>(int64_t{event.irq.irq}));
      break;
    default:
      break;
  }
}

void Wake(const WakeFields& f, const StringTable& strings, ProtoBuffer* p) {
  p->String(pp::SchedWakingFtraceEvent::kCommFieldNumber, strings.Get(f.comm));
  p->Int(pp::SchedWakingFtraceEvent::kPidFieldNumber, f.pid);
  p->Int(pp::SchedWakingFtraceEvent::kPrioFieldNumber, f.prio);
  p->Int(pp::SchedWakingFtraceEvent::kTargetCpuFieldNumber, f.target_cpu);
}

// Writes the event's payload into s->payload; returns its FtraceEvent field number.
int Payload(const Event& event, const StringTable& strings, FtraceEncodeScratch* s) {
  ProtoBuffer& p = s->payload;
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      using M = pp::SchedSwitchFtraceEvent;
      const SchedSwitchFields& f = event.sched_switch;
      p.String(M::kPrevCommFieldNumber, strings.Get(f.prev_comm));
      p.Int(M::kPrevPidFieldNumber, f.prev_pid);
      p.Int(M::kPrevPrioFieldNumber, f.prev_prio);
      p.Int(M::kPrevStateFieldNumber, f.prev_state);
      p.String(M::kNextCommFieldNumber, strings.Get(f.next_comm));
      p.Int(M::kNextPidFieldNumber, f.next_pid);
      p.Int(M::kNextPrioFieldNumber, f.next_prio);
      return FtraceEvent::kSchedSwitchFieldNumber;
    }
    case EventKind::kSchedWaking:
      Wake(event.wake, strings, &p);
      return FtraceEvent::kSchedWakingFieldNumber;
    case EventKind::kSchedWakeup:
      Wake(event.wake, strings, &p);
      return FtraceEvent::kSchedWakeupFieldNumber;
    case EventKind::kSchedWakeupNew:
      Wake(event.wake, strings, &p);
      return FtraceEvent::kSchedWakeupNewFieldNumber;
    case EventKind::kSchedMigrateTask: {
      using M = pp::SchedMigrateTaskFtraceEvent;
      p.String(M::kCommFieldNumber, strings.Get(event.migrate.comm));
      p.Int(M::kPidFieldNumber, event.migrate.pid);
      p.Int(M::kPrioFieldNumber, event.migrate.prio);
      p.Int(M::kOrigCpuFieldNumber, event.migrate.orig_cpu);
      p.Int(M::kDestCpuFieldNumber, event.migrate.dest_cpu);
      return FtraceEvent::kSchedMigrateTaskFieldNumber;
    }
    case EventKind::kSchedPiSetprio: {
      using M = pp::SchedPiSetprioFtraceEvent;
      p.String(M::kCommFieldNumber, strings.Get(event.pi.comm));
      p.Int(M::kNewprioFieldNumber, event.pi.new_prio);
      p.Int(M::kOldprioFieldNumber, event.pi.old_prio);
      p.Int(M::kPidFieldNumber, event.pi.pid);
      return FtraceEvent::kSchedPiSetprioFieldNumber;
    }
    case EventKind::kSchedProcessFork: {
      using M = pp::SchedProcessForkFtraceEvent;
      p.Int(M::kParentPidFieldNumber, event.fork.parent_pid);
      p.String(M::kChildCommFieldNumber, strings.Get(event.fork.child_comm));
      p.Int(M::kChildPidFieldNumber, event.fork.child_pid);
      return FtraceEvent::kSchedProcessForkFieldNumber;
    }
    case EventKind::kSchedProcessExit: {
      using M = pp::SchedProcessExitFtraceEvent;
      p.String(M::kCommFieldNumber, strings.Get(event.exit.comm));
      p.Int(M::kPidFieldNumber, event.exit.pid);
      p.Int(M::kPrioFieldNumber, event.exit.prio);
      return FtraceEvent::kSchedProcessExitFieldNumber;
    }
    case EventKind::kIrqHandlerEntry:
      p.Int(pp::IrqHandlerEntryFtraceEvent::kIrqFieldNumber, event.irq.irq);
      p.String(pp::IrqHandlerEntryFtraceEvent::kNameFieldNumber, strings.Get(event.irq.handler));
      return FtraceEvent::kIrqHandlerEntryFieldNumber;
    case EventKind::kIrqHandlerExit:
      p.Int(pp::IrqHandlerExitFtraceEvent::kIrqFieldNumber, event.irq.irq);
      p.Int(pp::IrqHandlerExitFtraceEvent::kRetFieldNumber, event.irq.ret);
      return FtraceEvent::kIrqHandlerExitFieldNumber;
    case EventKind::kSoftirqRaise:
      p.Varint(pp::SoftirqRaiseFtraceEvent::kVecFieldNumber, event.softirq.vec);
      return FtraceEvent::kSoftirqRaiseFieldNumber;
    case EventKind::kSoftirqEntry:
      p.Varint(pp::SoftirqEntryFtraceEvent::kVecFieldNumber, event.softirq.vec);
      return FtraceEvent::kSoftirqEntryFieldNumber;
    case EventKind::kSoftirqExit:
      p.Varint(pp::SoftirqExitFtraceEvent::kVecFieldNumber, event.softirq.vec);
      return FtraceEvent::kSoftirqExitFieldNumber;
    case EventKind::kNetifReceiveSkb:
      p.Varint(pp::NetifReceiveSkbFtraceEvent::kLenFieldNumber, event.net.len);
      p.String(pp::NetifReceiveSkbFtraceEvent::kNameFieldNumber, strings.Get(event.net.dev));
      return FtraceEvent::kNetifReceiveSkbFieldNumber;
    case EventKind::kNetDevXmit:
      p.Varint(pp::NetDevXmitFtraceEvent::kLenFieldNumber, event.net.len);
      p.String(pp::NetDevXmitFtraceEvent::kNameFieldNumber, strings.Get(event.net.dev));
      p.Int(pp::NetDevXmitFtraceEvent::kRcFieldNumber, event.net.rc);
      return FtraceEvent::kNetDevXmitFieldNumber;
    case EventKind::kIrqVectorEntry:
      if (strings.Get(event.name) == "local_timer_entry") {
        p.Int(pp::LocalTimerEntryFtraceEvent::kVectorFieldNumber, event.irq.irq);
        return FtraceEvent::kLocalTimerEntryFieldNumber;
      }
      break;
    case EventKind::kIrqVectorExit:
      if (strings.Get(event.name) == "local_timer_exit") {
        p.Int(pp::LocalTimerExitFtraceEvent::kVectorFieldNumber, event.irq.irq);
        return FtraceEvent::kLocalTimerExitFieldNumber;
      }
      break;
    default:
      break;
  }
  Generic(event, strings, s);
  return FtraceEvent::kGenericFieldNumber;
}

}  // namespace

void EncodeFtraceEvent(const Event& event, const StringTable& strings,
                       FtraceEncodeScratch* scratch) {
  scratch->payload.Clear();
  int payload_field = Payload(event, strings, scratch);
  ProtoBuffer& out = scratch->event;
  out.Clear();
  out.Varint(FtraceEvent::kTimestampFieldNumber, static_cast<uint64_t>(event.ts_ns));
  out.Varint(FtraceEvent::kPidFieldNumber, static_cast<uint32_t>(event.pid));
  // Fields in number order, as protobuf writes them: common_flags (5) after sched_switch (4).
  if (payload_field < FtraceEvent::kCommonFlagsFieldNumber) {
    out.Message(payload_field, scratch->payload);
    out.Varint(FtraceEvent::kCommonFlagsFieldNumber, event.flags);
  } else {
    out.Varint(FtraceEvent::kCommonFlagsFieldNumber, event.flags);
    out.Message(payload_field, scratch->payload);
  }
}

}  // namespace napiscope::perfetto_export
