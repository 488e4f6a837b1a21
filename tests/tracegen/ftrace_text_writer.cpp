#include "tracegen/ftrace_text_writer.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

namespace napiscope::tracegen {
namespace {

constexpr uint8_t kNeedReschedLazy = 0x02;

char IrqsOffChar(uint8_t flags) {
  bool irqs_off = flags & kIrqsOff;
  bool bh_off = flags & kBhOff;
  return irqs_off && bh_off ? 'D' : irqs_off ? 'd' : bh_off ? 'b' : '.';
}

// kernel/trace/trace_output.c: trace_print_lat_fmt() need-resched letter.
char NeedReschedChar(uint8_t flags) {
  switch (flags & (kNeedResched | kNeedReschedLazy | kPreemptResched)) {
    case kNeedResched | kNeedReschedLazy | kPreemptResched:
      return 'B';
    case kNeedResched | kPreemptResched:
      return 'N';
    case kNeedReschedLazy | kPreemptResched:
      return 'L';
    case kNeedResched | kNeedReschedLazy:
      return 'b';
    case kNeedResched:
      return 'n';
    case kPreemptResched:
      return 'p';
    case kNeedReschedLazy:
      return 'l';
    default:
      return '.';
  }
}

char HardSoftChar(uint8_t flags) {
  bool nmi = flags & kNmi;
  bool hardirq = flags & kHardirq;
  bool softirq = flags & kSoftirq;
  return nmi && hardirq       ? 'Z'
         : nmi                ? 'z'
         : hardirq && softirq ? 'H'
         : hardirq            ? 'h'
         : softirq            ? 's'
                              : '.';
}

std::string CommColumn(int32_t pid, const CommLookup& comm_of) {
  if (pid == 0) return "<idle>";
  std::string_view comm = comm_of(pid);
  return comm.empty() ? "<...>" : std::string(comm);
}

}  // namespace

std::string KernelFlagsColumn(uint8_t flags) {
  return {IrqsOffChar(flags), NeedReschedChar(flags), HardSoftChar(flags), '.', '.'};
}

std::string KernelFields(const Event& event, const StringTable& strings,
                         const CommLookup& comm_of) {
  auto text = [&](StringId id) { return std::string(strings.Get(id)); };
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& f = event.sched_switch;
      return absl::StrCat(
          "prev_comm=", text(f.prev_comm), " prev_pid=", f.prev_pid, " prev_prio=", f.prev_prio,
          " prev_state=", TaskStateLetters(f.prev_state), " ==> next_comm=", text(f.next_comm),
          " next_pid=", f.next_pid, " next_prio=", f.next_prio);
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      return absl::StrFormat("comm=%s pid=%d prio=%d target_cpu=%03d", text(event.wake.comm),
                             event.wake.pid, event.wake.prio, event.wake.target_cpu);
    case EventKind::kSchedMigrateTask:
      return absl::StrCat("comm=", text(event.migrate.comm), " pid=", event.migrate.pid,
                          " prio=", event.migrate.prio, " orig_cpu=", event.migrate.orig_cpu,
                          " dest_cpu=", event.migrate.dest_cpu);
    case EventKind::kSchedPiSetprio:
      return absl::StrCat("comm=", text(event.pi.comm), " pid=", event.pi.pid,
                          " oldprio=", event.pi.old_prio, " newprio=", event.pi.new_prio);
    case EventKind::kSchedProcessFork:
      return absl::StrCat(
          "comm=", std::string(comm_of(event.fork.parent_pid)), " pid=", event.fork.parent_pid,
          " child_comm=", text(event.fork.child_comm), " child_pid=", event.fork.child_pid);
    case EventKind::kSchedProcessExit:
      return absl::StrCat("comm=", text(event.exit.comm), " pid=", event.exit.pid,
                          " prio=", event.exit.prio, " group_dead=true");
    case EventKind::kIrqHandlerEntry:
      return absl::StrCat("irq=", event.irq.irq, " name=", text(event.irq.handler));
    case EventKind::kIrqHandlerExit:
      return absl::StrCat("irq=", event.irq.irq, " ret=", event.irq.ret ? "handled" : "unhandled");
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      return absl::StrCat("vec=", event.softirq.vec,
                          " [action=", std::string(SoftirqVectorName(event.softirq.vec)), "]");
    case EventKind::kNapiPoll:
      // The kernel prints %p as bare hex (hashed unless the hash-ptr option is off).
      return absl::StrFormat("napi poll on napi struct %016x for device %s work %d budget %d",
                             event.napi.napi, text(event.napi.dev), event.napi.work,
                             event.napi.budget);
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
      return absl::StrCat("dev=", text(event.net.dev),
                          " skbaddr=ffff888100000000 len=", event.net.len);
    case EventKind::kNetDevXmit:
      return absl::StrCat("dev=", text(event.net.dev),
                          " skbaddr=ffff888100000000 len=", event.net.len, " rc=", event.net.rc);
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return absl::StrCat("vector=", event.irq.irq);
    default:
      return "";
  }
}

std::string FtraceText(const std::vector<Event>& events, const StringTable& strings,
                       const CommLookup& comm_of, int cpus, const FtraceTextStyle& style) {
  std::string out;
  if (style.header) {
    absl::StrAppend(&out, "# tracer: nop\n#\n# entries-in-buffer/entries-written: ", events.size(),
                    "/", events.size(), "   #P:", cpus, "\n#\n");
    absl::StrAppend(&out, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n",
                    "#              | |         |   |||||     |         |\n");
  }
  for (const Event& event : events) {
    if (event.kind == EventKind::kMissedEvents) {
      if (event.missed.count >= 0) {
        absl::StrAppend(&out, "CPU:", event.cpu, " [LOST ", event.missed.count, " EVENTS]\n");
      } else {
        absl::StrAppend(&out, "CPU:", event.cpu, " [EVENTS DROPPED]\n");
      }
      continue;
    }
    absl::StrAppend(&out, absl::StrFormat("%16s-%-7d ", CommColumn(event.pid, comm_of), event.pid));
    if (style.tgid_column) {
      absl::StrAppend(&out, event.pid == 0 ? "(-------) " : absl::StrFormat("(%7d) ", event.pid));
    }
    absl::StrAppend(&out, absl::StrFormat("[%03d] ", event.cpu));
    if (style.flags_column) absl::StrAppend(&out, KernelFlagsColumn(event.flags), " ");
    int64_t seconds = event.ts_ns / 1'000'000'000;
    int64_t ns = event.ts_ns % 1'000'000'000;
    if (style.ns_timestamps) {
      absl::StrAppend(&out, absl::StrFormat("%6d.%09d: ", seconds, ns));
    } else {
      absl::StrAppend(&out, absl::StrFormat("%6d.%06d: ", seconds, ns / 1000));
    }
    absl::StrAppend(&out, std::string(strings.Get(event.name)), ": ",
                    KernelFields(event, strings, comm_of), "\n");
  }
  return out;
}

}  // namespace napiscope::tracegen
