#include "tracegen/event_describe.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

namespace napiscope::tracegen {

std::string DescribeEvent(const Event& event, const StringTable& strings,
                          const DescribeOptions& options) {
  auto text = [&](StringId id) { return std::string(strings.Get(id)); };
  std::string out = absl::StrCat("ts=", event.ts_ns, " cpu=", event.cpu, " pid=", event.pid, " ");
  if (event.kind == EventKind::kMissedEvents) {
    absl::StrAppend(&out, "<missed> count=", event.missed.count);
    return out;
  }
  absl::StrAppend(&out, text(event.name), " kind=", static_cast<int>(event.kind),
                  absl::StrFormat(" flags=0x%02x", event.flags & options.flags_mask));
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& f = event.sched_switch;
      absl::StrAppend(&out, " prev=", text(f.prev_comm), ":", f.prev_pid, " [", f.prev_prio,
                      "] state=0x", absl::Hex(f.prev_state & options.prev_state_mask),
                      " next=", text(f.next_comm), ":", f.next_pid, " [", f.next_prio, "]");
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      absl::StrAppend(&out, " task=", text(event.wake.comm), ":", event.wake.pid, " [",
                      event.wake.prio, "] target_cpu=", event.wake.target_cpu);
      break;
    case EventKind::kSchedMigrateTask:
      absl::StrAppend(&out, " task=", text(event.migrate.comm), ":", event.migrate.pid, " [",
                      event.migrate.prio, "] ", event.migrate.orig_cpu, "->",
                      event.migrate.dest_cpu);
      break;
    case EventKind::kSchedPiSetprio:
      absl::StrAppend(&out, " task=", text(event.pi.comm), ":", event.pi.pid, " ",
                      event.pi.old_prio, "->", event.pi.new_prio);
      break;
    case EventKind::kSchedProcessFork:
      absl::StrAppend(&out, " parent=", event.fork.parent_pid,
                      " child=", text(event.fork.child_comm), ":", event.fork.child_pid);
      break;
    case EventKind::kSchedProcessExit:
      absl::StrAppend(&out, " task=", text(event.exit.comm), ":", event.exit.pid, " [",
                      event.exit.prio, "]");
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit: {
      int32_t ret = options.irq_ret_as_bool ? event.irq.ret != 0 : event.irq.ret;
      absl::StrAppend(&out, " irq=", event.irq.irq, " ret=", ret,
                      " handler=", text(event.irq.handler));
      break;
    }
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      absl::StrAppend(&out, " vec=", event.softirq.vec);
      break;
    case EventKind::kNapiPoll:
      absl::StrAppend(&out, " napi=0x", absl::Hex(event.napi.napi), " dev=", text(event.napi.dev),
                      " work=", event.napi.work, " budget=", event.napi.budget);
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      absl::StrAppend(&out, " dev=", text(event.net.dev), " len=", event.net.len,
                      " rc=", event.net.rc);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace napiscope::tracegen
