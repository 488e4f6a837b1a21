#include "napiscope/event.h"

#include <array>
#include <cstring>

namespace napiscope {
namespace {

// x86 irq_vectors events (arch/x86/include/asm/trace/irq_vectors.h), each with _entry/_exit.
constexpr std::string_view kIrqVectorNames[] = {
    "local_timer",   "spurious_apic", "error_apic",          "x86_platform_ipi",
    "irq_work",      "reschedule",    "call_function",       "call_function_single",
    "threshold_apic", "deferred_error_apic", "thermal_apic", "posted_msi_notification"};

constexpr std::array<std::string_view, kSoftirqVectorCount> kVectorNames = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

// Letters in bit order of TaskStateBit (without the preempt bit).
constexpr std::string_view kStateLetters = "SDTtXZPI";

}  // namespace

std::string_view IrqVectorBaseName(std::string_view event_name) {
  std::string_view base;
  if (event_name.ends_with("_entry")) {
    base = event_name.substr(0, event_name.size() - 6);
  } else if (event_name.ends_with("_exit")) {
    base = event_name.substr(0, event_name.size() - 5);
  } else {
    return {};
  }
  for (std::string_view vector : kIrqVectorNames) {
    if (vector == base) return vector;
  }
  return {};
}

std::string_view SoftirqVectorName(uint32_t vec) {
  return vec < kVectorNames.size() ? kVectorNames[vec] : std::string_view("?");
}

std::string TaskStateLetters(uint16_t state) {
  if (IsRunnableState(state)) return (state & kStatePreempted) ? "R+" : "R";
  std::string letters;
  for (size_t bit = 0; bit < kStateLetters.size(); ++bit) {
    if (state & (1u << bit)) {
      if (!letters.empty()) letters += '|';
      letters += kStateLetters[bit];
    }
  }
  if (state & kStateUnknown) letters += letters.empty() ? "?" : "|?";
  if (state & kStatePreempted) letters += '+';
  return letters;
}

bool ParseTaskStateLetters(std::string_view letters, uint16_t* state) {
  if (letters.empty()) return false;
  uint16_t value = 0;
  bool noload = false;
  bool modifier = false;  // K, W, N: meaningful beside another letter only
  bool running = false;
  for (char c : letters) {
    switch (c) {
      case '|':
        continue;
      case 'R':
        running = true;
        continue;
      case 'K':  // wakekill (before 4.14): a modifier of D, no state of its own
      case 'W':  // waking (before 4.14): still on its way to running
        modifier = true;
        continue;
      case '+':
        value |= kStatePreempted;
        continue;
      case 'x':  // TASK_DEAD (before 4.14)
        value |= kStateDead;
        continue;
      case 'N':  // noload (before 4.14): D|N is what 4.14+ reports as I
      case 'n':
        noload = modifier = true;
        continue;
      default:
        break;
    }
    size_t bit = kStateLetters.find(c);
    value |= bit == std::string_view::npos ? static_cast<uint16_t>(kStateUnknown)
                                           : static_cast<uint16_t>(1u << bit);
  }
  if (noload && (value & kStateUninterruptible)) {
    value = static_cast<uint16_t>((value & ~kStateUninterruptible) | kStateIdle);
  }
  if (modifier && !running && (value & ~kStatePreempted) == 0) value |= kStateUnknown;
  *state = value;
  return true;
}

bool SameEventContent(const Event& a, const Event& b) {
  if (a.ts_ns != b.ts_ns || a.pid != b.pid || a.cpu != b.cpu || a.kind != b.kind ||
      a.flags != b.flags || a.name != b.name) {
    return false;
  }
  auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof(x)) == 0; };
  switch (a.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields &x = a.sched_switch, &y = b.sched_switch;
      return x.prev_pid == y.prev_pid && x.next_pid == y.next_pid && x.prev_prio == y.prev_prio &&
             x.next_prio == y.next_prio && x.prev_state == y.prev_state &&
             x.prev_comm == y.prev_comm && x.next_comm == y.next_comm;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      return a.wake.pid == b.wake.pid && a.wake.prio == b.wake.prio &&
             a.wake.target_cpu == b.wake.target_cpu && a.wake.comm == b.wake.comm;
    case EventKind::kSchedMigrateTask:
      return a.migrate.pid == b.migrate.pid && a.migrate.prio == b.migrate.prio &&
             a.migrate.orig_cpu == b.migrate.orig_cpu && a.migrate.dest_cpu == b.migrate.dest_cpu &&
             a.migrate.comm == b.migrate.comm;
    case EventKind::kSchedPiSetprio:
      return a.pi.pid == b.pi.pid && a.pi.old_prio == b.pi.old_prio &&
             a.pi.new_prio == b.pi.new_prio && a.pi.comm == b.pi.comm;
    case EventKind::kSchedProcessFork:
      return a.fork.parent_pid == b.fork.parent_pid && a.fork.child_pid == b.fork.child_pid &&
             a.fork.child_comm == b.fork.child_comm;
    case EventKind::kSchedProcessExit:
      return a.exit.pid == b.exit.pid && a.exit.prio == b.exit.prio && a.exit.comm == b.exit.comm;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return a.irq.irq == b.irq.irq && a.irq.ret == b.irq.ret && a.irq.handler == b.irq.handler;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      return a.softirq.vec == b.softirq.vec;
    case EventKind::kNapiPoll:
      return a.napi.napi == b.napi.napi && a.napi.dev == b.napi.dev && a.napi.work == b.napi.work &&
             a.napi.budget == b.napi.budget;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      return a.net.dev == b.net.dev && a.net.len == b.net.len && a.net.rc == b.net.rc;
    case EventKind::kMissedEvents:
      return same(a.missed.count, b.missed.count);
    case EventKind::kOther:
    case EventKind::kCount:
      return true;
  }
  return true;
}

}  // namespace napiscope
