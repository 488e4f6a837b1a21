#include "ftrace_event_fill.h"

#include <string>

namespace napiscope::perfetto_export {
namespace {

using perfetto::protos::GenericFtraceEvent;

std::string Str(const StringTable& strings, StringId id) { return std::string(strings.Get(id)); }

void AddInt(GenericFtraceEvent* generic, const char* name, int64_t value) {
  GenericFtraceEvent::Field* field = generic->add_field();
  field->set_name(name);
  field->set_int_value(value);
}

void AddUint(GenericFtraceEvent* generic, const char* name, uint64_t value) {
  GenericFtraceEvent::Field* field = generic->add_field();
  field->set_name(name);
  field->set_uint_value(value);
}

void AddStr(GenericFtraceEvent* generic, const char* name, std::string value) {
  GenericFtraceEvent::Field* field = generic->add_field();
  field->set_name(name);
  field->set_str_value(std::move(value));
}

// Events Perfetto has no message for: napi_poll, netif_rx, x86 vectors other than the local
// timer, and events napiscope only counts (their fields were not decoded).
void FillGeneric(const Event& event, const StringTable& strings, GenericFtraceEvent* generic) {
  generic->set_event_name(Str(strings, event.name));
  switch (event.kind) {
    case EventKind::kNapiPoll:
      AddUint(generic, "napi", event.napi.napi);
      AddStr(generic, "dev_name", Str(strings, event.napi.dev));
      AddInt(generic, "work", event.napi.work);
      AddInt(generic, "budget", event.napi.budget);
      break;
    case EventKind::kNetifRx:
      AddStr(generic, "name", Str(strings, event.net.dev));
      AddUint(generic, "len", event.net.len);
      break;
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      AddInt(generic, "vector", event.irq.irq);
      break;
    default:
      break;
  }
}

}  // namespace

void FillFtraceEvent(const Event& event, const StringTable& strings,
                     perfetto::protos::FtraceEvent* out) {
  out->set_timestamp(static_cast<uint64_t>(event.ts_ns));
  out->set_pid(static_cast<uint32_t>(event.pid));
  out->set_common_flags(event.flags);
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& f = event.sched_switch;
      auto* e = out->mutable_sched_switch();
      e->set_prev_comm(Str(strings, f.prev_comm));
      e->set_prev_pid(f.prev_pid);
      e->set_prev_prio(f.prev_prio);
      e->set_prev_state(f.prev_state);
      e->set_next_comm(Str(strings, f.next_comm));
      e->set_next_pid(f.next_pid);
      e->set_next_prio(f.next_prio);
      return;
    }
    case EventKind::kSchedWaking: {
      auto* e = out->mutable_sched_waking();
      e->set_comm(Str(strings, event.wake.comm));
      e->set_pid(event.wake.pid);
      e->set_prio(event.wake.prio);
      e->set_target_cpu(event.wake.target_cpu);
      return;
    }
    case EventKind::kSchedWakeup: {
      auto* e = out->mutable_sched_wakeup();
      e->set_comm(Str(strings, event.wake.comm));
      e->set_pid(event.wake.pid);
      e->set_prio(event.wake.prio);
      e->set_target_cpu(event.wake.target_cpu);
      return;
    }
    case EventKind::kSchedWakeupNew: {
      auto* e = out->mutable_sched_wakeup_new();
      e->set_comm(Str(strings, event.wake.comm));
      e->set_pid(event.wake.pid);
      e->set_prio(event.wake.prio);
      e->set_target_cpu(event.wake.target_cpu);
      return;
    }
    case EventKind::kSchedMigrateTask: {
      auto* e = out->mutable_sched_migrate_task();
      e->set_comm(Str(strings, event.migrate.comm));
      e->set_pid(event.migrate.pid);
      e->set_prio(event.migrate.prio);
      e->set_orig_cpu(event.migrate.orig_cpu);
      e->set_dest_cpu(event.migrate.dest_cpu);
      return;
    }
    case EventKind::kSchedPiSetprio: {
      auto* e = out->mutable_sched_pi_setprio();
      e->set_comm(Str(strings, event.pi.comm));
      e->set_pid(event.pi.pid);
      e->set_oldprio(event.pi.old_prio);
      e->set_newprio(event.pi.new_prio);
      return;
    }
    case EventKind::kSchedProcessFork: {
      auto* e = out->mutable_sched_process_fork();
      e->set_parent_pid(event.fork.parent_pid);
      e->set_child_pid(event.fork.child_pid);
      e->set_child_comm(Str(strings, event.fork.child_comm));
      return;
    }
    case EventKind::kSchedProcessExit: {
      auto* e = out->mutable_sched_process_exit();
      e->set_comm(Str(strings, event.exit.comm));
      e->set_pid(event.exit.pid);
      e->set_prio(event.exit.prio);
      return;
    }
    case EventKind::kIrqHandlerEntry: {
      auto* e = out->mutable_irq_handler_entry();
      e->set_irq(event.irq.irq);
      e->set_name(Str(strings, event.irq.handler));
      return;
    }
    case EventKind::kIrqHandlerExit: {
      auto* e = out->mutable_irq_handler_exit();
      e->set_irq(event.irq.irq);
      e->set_ret(event.irq.ret);
      return;
    }
    case EventKind::kSoftirqRaise:
      out->mutable_softirq_raise()->set_vec(event.softirq.vec);
      return;
    case EventKind::kSoftirqEntry:
      out->mutable_softirq_entry()->set_vec(event.softirq.vec);
      return;
    case EventKind::kSoftirqExit:
      out->mutable_softirq_exit()->set_vec(event.softirq.vec);
      return;
    case EventKind::kNetifReceiveSkb: {
      auto* e = out->mutable_netif_receive_skb();
      e->set_len(event.net.len);
      e->set_name(Str(strings, event.net.dev));
      return;
    }
    case EventKind::kNetDevXmit: {
      auto* e = out->mutable_net_dev_xmit();
      e->set_len(event.net.len);
      e->set_name(Str(strings, event.net.dev));
      e->set_rc(event.net.rc);
      return;
    }
    case EventKind::kIrqVectorEntry:
      if (strings.Get(event.name) == "local_timer_entry") {
        out->mutable_local_timer_entry()->set_vector(event.irq.irq);
        return;
      }
      break;
    case EventKind::kIrqVectorExit:
      if (strings.Get(event.name) == "local_timer_exit") {
        out->mutable_local_timer_exit()->set_vector(event.irq.irq);
        return;
      }
      break;
    default:
      break;
  }
  FillGeneric(event, strings, out->mutable_generic());
}

}  // namespace napiscope::perfetto_export
