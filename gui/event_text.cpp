#include "event_text.h"

#include <string>

#include "napiscope/phrasing.h"
#include "qt_text.h"

namespace napiscope::gui {
namespace {

std::string_view Comm(const StringTable& strings, StringId id) { return strings.Get(id); }

bool IsIrq(EventKind kind) {
  return kind == EventKind::kIrqHandlerEntry || kind == EventKind::kIrqHandlerExit ||
         kind == EventKind::kIrqVectorEntry || kind == EventKind::kIrqVectorExit;
}
bool IsSoftirq(EventKind kind) {
  return kind == EventKind::kSoftirqRaise || kind == EventKind::kSoftirqEntry ||
         kind == EventKind::kSoftirqExit;
}
bool IsWake(EventKind kind) {
  return kind == EventKind::kSchedWaking || kind == EventKind::kSchedWakeup ||
         kind == EventKind::kSchedWakeupNew;
}
bool IsNet(EventKind kind) {
  return kind == EventKind::kNetifReceiveSkb || kind == EventKind::kNetifRx ||
         kind == EventKind::kNetDevXmit;
}

}  // namespace

QString EventNameText(const Event& event, const StringTable& strings) {
  if (event.kind == EventKind::kMissedEvents) return "[LOST EVENTS]";
  if (event.name != 0) return Str(strings.Get(event.name));
  std::string_view name = EventKindName(event.kind);
  return name.empty() ? QString("?") : Str(name);
}

QString EventTaskText(const Event& event, const TraceContext& context) {
  std::string comm = TaskNameOnCpu(context.tasks, context.strings, event.pid, event.cpu, event.ts_ns);
  return QString("%1 (%2)").arg(comm.empty() ? QString("<...>") : Str(comm)).arg(event.pid);
}

QString EventFieldsText(const Event& event, const TraceContext& context) {
  const StringTable& strings = context.strings;
  auto s = [&](StringId id) { return Str(Comm(strings, id)); };
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& f = event.sched_switch;
      return QString("%1:%2 [%3] %4 ==> %5:%6 [%7]")
          .arg(s(f.prev_comm))
          .arg(f.prev_pid)
          .arg(f.prev_prio)
          // trace-cmd prints a preempted task's state without the kernel's "+".
          .arg(QString::fromStdString(TaskStateLetters(f.prev_state & ~kStatePreempted)),
               s(f.next_comm))
          .arg(f.next_pid)
          .arg(f.next_prio);
    }
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      return QString("%1:%2 [%3] CPU:%4")
          .arg(s(event.wake.comm))
          .arg(event.wake.pid)
          .arg(event.wake.prio)
          .arg(event.wake.target_cpu, 3, 10, QChar('0'));
    case EventKind::kSchedWaking:
      return QString("comm=%1 pid=%2 prio=%3 target_cpu=%4")
          .arg(s(event.wake.comm))
          .arg(event.wake.pid)
          .arg(event.wake.prio)
          .arg(event.wake.target_cpu, 3, 10, QChar('0'));
    case EventKind::kSchedMigrateTask:
      return QString("comm=%1 pid=%2 prio=%3 orig_cpu=%4 dest_cpu=%5")
          .arg(s(event.migrate.comm))
          .arg(event.migrate.pid)
          .arg(event.migrate.prio)
          .arg(event.migrate.orig_cpu)
          .arg(event.migrate.dest_cpu);
    case EventKind::kSchedPiSetprio:
      return QString("comm=%1 pid=%2 oldprio=%3 newprio=%4")
          .arg(s(event.pi.comm))
          .arg(event.pi.pid)
          .arg(event.pi.old_prio)
          .arg(event.pi.new_prio);
    case EventKind::kSchedProcessFork:
      return QString("comm=%1 pid=%2 child_comm=%3 child_pid=%4")
          .arg(s(context.tasks.CommAt(event.fork.parent_pid, event.ts_ns)))
          .arg(event.fork.parent_pid)
          .arg(s(event.fork.child_comm))
          .arg(event.fork.child_pid);
    case EventKind::kSchedProcessExit:
      return QString("comm=%1 pid=%2 prio=%3")
          .arg(s(event.exit.comm))
          .arg(event.exit.pid)
          .arg(event.exit.prio);
    case EventKind::kIrqHandlerEntry:
      return QString("irq=%1 name=%2").arg(event.irq.irq).arg(s(event.irq.handler));
    case EventKind::kIrqHandlerExit:
      return QString("irq=%1 ret=%2")
          .arg(event.irq.irq)
          .arg(event.irq.ret != 0 ? "handled" : "unhandled");
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return QString("vector=%1").arg(event.irq.irq);
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      return QString("vec=%1 [action=%2]")
          .arg(event.softirq.vec)
          .arg(Str(SoftirqVectorName(event.softirq.vec)));
    case EventKind::kNapiPoll:
      return QString("napi poll on napi struct 0x%1 for device %2 work %3 budget %4")
          .arg(event.napi.napi, 0, 16)
          .arg(s(event.napi.dev))
          .arg(event.napi.work)
          .arg(event.napi.budget);
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
      return QString("dev=%1 len=%2").arg(s(event.net.dev)).arg(event.net.len);
    case EventKind::kNetDevXmit:
      return QString("dev=%1 len=%2 rc=%3").arg(s(event.net.dev)).arg(event.net.len).arg(event.net.rc);
    case EventKind::kMissedEvents:
      return event.missed.count >= 0 ? QString("%1 lost").arg(QString::fromStdString(
                                           Counted(event.missed.count, "event")))
                                     : QString("events lost (count unknown)");
    case EventKind::kOther:
    case EventKind::kCount:
      return {};
  }
  return {};
}

std::optional<std::string> EventFieldValue(std::string_view key, const Event& event,
                                           const TraceContext& context) {
  const StringTable& strings = context.strings;
  auto str = [&](StringId id) { return std::string(strings.Get(id)); };
  auto num = [](int64_t value) { return std::to_string(value); };
  // The current task's name; pid 0 is swapper/N of the event's CPU.
  auto task = [&] {
    return TaskNameOnCpu(context.tasks, strings, event.pid, event.cpu, event.ts_ns);
  };
  EventKind kind = event.kind;
  if (key == "cpu") return num(event.cpu);
  if (key == "event") return EventNameText(event, strings).toStdString();
  if (key == "common_pid") return num(event.pid);
  if (key == "task") return task();
  if (kind == EventKind::kSchedSwitch) {
    const SchedSwitchFields& f = event.sched_switch;
    if (key == "prev_comm") return str(f.prev_comm);
    if (key == "prev_pid") return num(f.prev_pid);
    if (key == "prev_prio") return num(f.prev_prio);
    if (key == "prev_state") return TaskStateLetters(f.prev_state);
    if (key == "next_comm") return str(f.next_comm);
    if (key == "next_pid") return num(f.next_pid);
    if (key == "next_prio") return num(f.next_prio);
  }
  if (IsWake(kind)) {
    if (key == "comm") return str(event.wake.comm);
    if (key == "pid") return num(event.wake.pid);
    if (key == "prio") return num(event.wake.prio);
    if (key == "target_cpu") return num(event.wake.target_cpu);
  }
  if (kind == EventKind::kSchedMigrateTask) {
    if (key == "comm") return str(event.migrate.comm);
    if (key == "pid") return num(event.migrate.pid);
    if (key == "prio") return num(event.migrate.prio);
    if (key == "orig_cpu") return num(event.migrate.orig_cpu);
    if (key == "dest_cpu") return num(event.migrate.dest_cpu);
  }
  if (kind == EventKind::kSchedPiSetprio) {
    if (key == "comm") return str(event.pi.comm);
    if (key == "pid") return num(event.pi.pid);
    if (key == "oldprio") return num(event.pi.old_prio);
    if (key == "newprio") return num(event.pi.new_prio);
  }
  if (kind == EventKind::kSchedProcessFork) {
    if (key == "pid") return num(event.fork.parent_pid);
    if (key == "child_comm") return str(event.fork.child_comm);
    if (key == "child_pid") return num(event.fork.child_pid);
  }
  if (kind == EventKind::kSchedProcessExit) {
    if (key == "comm") return str(event.exit.comm);
    if (key == "pid") return num(event.exit.pid);
    if (key == "prio") return num(event.exit.prio);
  }
  if (IsIrq(kind)) {
    if (key == "irq" || key == "vector") return num(event.irq.irq);
    if (key == "name") return str(event.irq.handler);
    if (key == "ret") return num(event.irq.ret);
  }
  if (IsSoftirq(kind)) {
    if (key == "vec") return num(event.softirq.vec);
    if (key == "action") return std::string(SoftirqVectorName(event.softirq.vec));
  }
  if (kind == EventKind::kNapiPoll) {
    if (key == "dev") return str(event.napi.dev);
    if (key == "work") return num(event.napi.work);
    if (key == "budget") return num(event.napi.budget);
  }
  if (IsNet(kind)) {
    if (key == "dev") return str(event.net.dev);
    if (key == "len") return num(event.net.len);
    if (key == "rc") return num(event.net.rc);
  }
  // Keys every event answers: the current task's comm and pid.
  if (key == "comm") return task();
  if (key == "pid") return num(event.pid);
  return std::nullopt;
}

}  // namespace napiscope::gui
