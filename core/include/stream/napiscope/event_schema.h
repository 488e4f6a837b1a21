// The kernel events napiscope reads, in one table: each EventKind's system, event name and
// format-file fields. The trace.dat decoder, the text parser and the trace generator read it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "napiscope/event.h"

namespace napiscope {

/// One field of an event's kernel format file (events/<system>/<name>/format).
struct SchemaField {
  std::string_view name;  ///< the format file's name ("prev_comm")
  bool decoded;           ///< read into Event; false: only written, for complete generated records
};

/// One EventKind as the kernel defines it.
struct EventSchema {
  EventKind kind;           ///< the entry's own kind (the table is indexed by it)
  std::string_view system;  ///< "sched", "irq", "napi", "net", "irq_vectors"; "" if none
  std::string_view name;    ///< "sched_switch"; "" for irq_vectors (IrqVectorBaseName)
  std::span<const SchemaField> fields;  ///< in the format file's order, as `report -R` prints them
};

namespace event_schema_internal {

inline constexpr bool kDecoded = true;       // read into Event
inline constexpr bool kWrittenOnly = false;  // only written by the generator

inline constexpr SchemaField kSchedSwitch[] = {
    {"prev_comm", kDecoded},  {"prev_pid", kDecoded},  {"prev_prio", kDecoded},
    {"prev_state", kDecoded}, {"next_comm", kDecoded}, {"next_pid", kDecoded},
    {"next_prio", kDecoded},
};
inline constexpr SchemaField kWake[] = {
    {"comm", kDecoded},
    {"pid", kDecoded},
    {"prio", kDecoded},
    {"target_cpu", kDecoded},
};
inline constexpr SchemaField kMigrate[] = {
    {"comm", kDecoded},     {"pid", kDecoded},      {"prio", kDecoded},
    {"orig_cpu", kDecoded}, {"dest_cpu", kDecoded},
};
inline constexpr SchemaField kPiSetprio[] = {
    {"comm", kDecoded},
    {"pid", kDecoded},
    {"oldprio", kDecoded},
    {"newprio", kDecoded},
};
inline constexpr SchemaField kFork[] = {
    {"parent_comm", kWrittenOnly},
    {"parent_pid", kDecoded},
    {"child_comm", kDecoded},
    {"child_pid", kDecoded},
};
inline constexpr SchemaField kExit[] = {
    {"comm", kDecoded},
    {"pid", kDecoded},
    {"prio", kDecoded},
    {"group_dead", kWrittenOnly},
};
inline constexpr SchemaField kIrqHandlerEntry[] = {
    {"irq", kDecoded},
    {"name", kDecoded},
};
inline constexpr SchemaField kIrqHandlerExit[] = {
    {"irq", kDecoded},
    {"ret", kDecoded},
};
inline constexpr SchemaField kSoftirq[] = {{"vec", kDecoded}};
inline constexpr SchemaField kNapiPoll[] = {
    {"napi", kDecoded},
    {"dev_name", kDecoded},
    {"work", kDecoded},
    {"budget", kDecoded},
};
inline constexpr SchemaField kNetReceive[] = {
    {"skbaddr", kWrittenOnly},
    {"len", kDecoded},
    {"name", kDecoded},
};
inline constexpr SchemaField kNetDevXmit[] = {
    {"skbaddr", kWrittenOnly},
    {"len", kDecoded},
    {"rc", kDecoded},
    {"name", kDecoded},
};
inline constexpr SchemaField kIrqVector[] = {{"vector", kDecoded}};

}  // namespace event_schema_internal

/// Every EventKind's schema, indexed by the kind; kOther and kMissedEvents have no system.
inline constexpr std::array<EventSchema, static_cast<size_t>(EventKind::kCount)> kEventSchemas =
    [] {
      namespace f = event_schema_internal;
      using K = EventKind;
      return std::array<EventSchema, static_cast<size_t>(K::kCount)>{{
          {K::kOther, "", "", {}},
          {K::kSchedSwitch, "sched", "sched_switch", f::kSchedSwitch},
          {K::kSchedWaking, "sched", "sched_waking", f::kWake},
          {K::kSchedWakeup, "sched", "sched_wakeup", f::kWake},
          {K::kSchedWakeupNew, "sched", "sched_wakeup_new", f::kWake},
          {K::kSchedMigrateTask, "sched", "sched_migrate_task", f::kMigrate},
          {K::kSchedPiSetprio, "sched", "sched_pi_setprio", f::kPiSetprio},
          {K::kSchedProcessFork, "sched", "sched_process_fork", f::kFork},
          {K::kSchedProcessExit, "sched", "sched_process_exit", f::kExit},
          {K::kIrqHandlerEntry, "irq", "irq_handler_entry", f::kIrqHandlerEntry},
          {K::kIrqHandlerExit, "irq", "irq_handler_exit", f::kIrqHandlerExit},
          {K::kSoftirqRaise, "irq", "softirq_raise", f::kSoftirq},
          {K::kSoftirqEntry, "irq", "softirq_entry", f::kSoftirq},
          {K::kSoftirqExit, "irq", "softirq_exit", f::kSoftirq},
          {K::kNapiPoll, "napi", "napi_poll", f::kNapiPoll},
          {K::kNetifReceiveSkb, "net", "netif_receive_skb", f::kNetReceive},
          {K::kNetifRx, "net", "netif_rx", f::kNetReceive},
          {K::kNetDevXmit, "net", "net_dev_xmit", f::kNetDevXmit},
          {K::kIrqVectorEntry, "irq_vectors", "", f::kIrqVector},
          {K::kIrqVectorExit, "irq_vectors", "", f::kIrqVector},
          {K::kMissedEvents, "", "", {}},
      }};
    }();

static_assert(
    [] {
      for (size_t i = 0; i < kEventSchemas.size(); ++i) {
        if (static_cast<size_t>(kEventSchemas[i].kind) != i) return false;
      }
      return true;
    }(),
    "kEventSchemas is indexed by EventKind: one entry per kind, in the enum's order");

/// The schema of `kind` (a value below kCount).
constexpr const EventSchema& SchemaOf(EventKind kind) {
  return kEventSchemas[static_cast<size_t>(kind)];
}

/// The most fields any kind has.
inline constexpr size_t kMaxSchemaFields =
    std::ranges::max(kEventSchemas, {}, [](const EventSchema& s) {
      return s.fields.size();
    }).fields.size();

/// The index of field `name` in SchemaOf(kind).fields; a name the table lacks does not compile.
consteval size_t FieldIndex(EventKind kind, std::string_view name) {
  const std::span<const SchemaField> fields = SchemaOf(kind).fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return i;
  }
  throw "the event schema has no such field";
}

/// True when two kinds share one field list, so one set of indices serves both.
consteval bool SameFields(EventKind a, EventKind b) {
  return SchemaOf(a).fields.data() == SchemaOf(b).fields.data();
}

/// The kind of kernel event `system`:`name`, kOther when napiscope does not decode it. The
/// irq_vectors kinds only count in their own system: their names are plain words elsewhere.
EventKind EventKindOf(std::string_view system, std::string_view name);

// Field indices for the readers and writers that index EventSchema::fields, named once here.

/// sched_switch.
namespace sched_switch_field {
inline constexpr size_t kPrevComm = FieldIndex(EventKind::kSchedSwitch, "prev_comm");
inline constexpr size_t kPrevPid = FieldIndex(EventKind::kSchedSwitch, "prev_pid");
inline constexpr size_t kPrevPrio = FieldIndex(EventKind::kSchedSwitch, "prev_prio");
inline constexpr size_t kPrevState = FieldIndex(EventKind::kSchedSwitch, "prev_state");
inline constexpr size_t kNextComm = FieldIndex(EventKind::kSchedSwitch, "next_comm");
inline constexpr size_t kNextPid = FieldIndex(EventKind::kSchedSwitch, "next_pid");
inline constexpr size_t kNextPrio = FieldIndex(EventKind::kSchedSwitch, "next_prio");
}  // namespace sched_switch_field

/// sched_waking, sched_wakeup, sched_wakeup_new.
namespace wake_field {
static_assert(SameFields(EventKind::kSchedWaking, EventKind::kSchedWakeup) &&
              SameFields(EventKind::kSchedWaking, EventKind::kSchedWakeupNew));
inline constexpr size_t kComm = FieldIndex(EventKind::kSchedWaking, "comm");
inline constexpr size_t kPid = FieldIndex(EventKind::kSchedWaking, "pid");
inline constexpr size_t kPrio = FieldIndex(EventKind::kSchedWaking, "prio");
inline constexpr size_t kTargetCpu = FieldIndex(EventKind::kSchedWaking, "target_cpu");
}  // namespace wake_field

/// sched_migrate_task.
namespace migrate_field {
inline constexpr size_t kComm = FieldIndex(EventKind::kSchedMigrateTask, "comm");
inline constexpr size_t kPid = FieldIndex(EventKind::kSchedMigrateTask, "pid");
inline constexpr size_t kPrio = FieldIndex(EventKind::kSchedMigrateTask, "prio");
inline constexpr size_t kOrigCpu = FieldIndex(EventKind::kSchedMigrateTask, "orig_cpu");
inline constexpr size_t kDestCpu = FieldIndex(EventKind::kSchedMigrateTask, "dest_cpu");
}  // namespace migrate_field

/// sched_pi_setprio.
namespace pi_setprio_field {
inline constexpr size_t kComm = FieldIndex(EventKind::kSchedPiSetprio, "comm");
inline constexpr size_t kPid = FieldIndex(EventKind::kSchedPiSetprio, "pid");
inline constexpr size_t kOldPrio = FieldIndex(EventKind::kSchedPiSetprio, "oldprio");
inline constexpr size_t kNewPrio = FieldIndex(EventKind::kSchedPiSetprio, "newprio");
}  // namespace pi_setprio_field

/// sched_process_fork.
namespace fork_field {
inline constexpr size_t kParentComm = FieldIndex(EventKind::kSchedProcessFork, "parent_comm");
inline constexpr size_t kParentPid = FieldIndex(EventKind::kSchedProcessFork, "parent_pid");
inline constexpr size_t kChildComm = FieldIndex(EventKind::kSchedProcessFork, "child_comm");
inline constexpr size_t kChildPid = FieldIndex(EventKind::kSchedProcessFork, "child_pid");
}  // namespace fork_field

/// sched_process_exit.
namespace exit_field {
inline constexpr size_t kComm = FieldIndex(EventKind::kSchedProcessExit, "comm");
inline constexpr size_t kPid = FieldIndex(EventKind::kSchedProcessExit, "pid");
inline constexpr size_t kPrio = FieldIndex(EventKind::kSchedProcessExit, "prio");
inline constexpr size_t kGroupDead = FieldIndex(EventKind::kSchedProcessExit, "group_dead");
}  // namespace exit_field

/// irq_handler_entry and irq_handler_exit.
namespace irq_handler_field {
inline constexpr size_t kIrq = FieldIndex(EventKind::kIrqHandlerEntry, "irq");
static_assert(kIrq == FieldIndex(EventKind::kIrqHandlerExit, "irq"));
inline constexpr size_t kName = FieldIndex(EventKind::kIrqHandlerEntry, "name");
inline constexpr size_t kRet = FieldIndex(EventKind::kIrqHandlerExit, "ret");
}  // namespace irq_handler_field

/// softirq_raise, softirq_entry, softirq_exit.
namespace softirq_field {
static_assert(SameFields(EventKind::kSoftirqRaise, EventKind::kSoftirqEntry) &&
              SameFields(EventKind::kSoftirqRaise, EventKind::kSoftirqExit));
inline constexpr size_t kVec = FieldIndex(EventKind::kSoftirqRaise, "vec");
}  // namespace softirq_field

/// napi_poll.
namespace napi_poll_field {
inline constexpr size_t kNapi = FieldIndex(EventKind::kNapiPoll, "napi");
inline constexpr size_t kDevName = FieldIndex(EventKind::kNapiPoll, "dev_name");
inline constexpr size_t kWork = FieldIndex(EventKind::kNapiPoll, "work");
inline constexpr size_t kBudget = FieldIndex(EventKind::kNapiPoll, "budget");
}  // namespace napi_poll_field

/// netif_receive_skb and netif_rx.
namespace net_receive_field {
static_assert(SameFields(EventKind::kNetifReceiveSkb, EventKind::kNetifRx));
inline constexpr size_t kSkbaddr = FieldIndex(EventKind::kNetifRx, "skbaddr");
inline constexpr size_t kLen = FieldIndex(EventKind::kNetifRx, "len");
inline constexpr size_t kName = FieldIndex(EventKind::kNetifRx, "name");
}  // namespace net_receive_field

/// net_dev_xmit.
namespace net_dev_xmit_field {
inline constexpr size_t kSkbaddr = FieldIndex(EventKind::kNetDevXmit, "skbaddr");
inline constexpr size_t kLen = FieldIndex(EventKind::kNetDevXmit, "len");
inline constexpr size_t kRc = FieldIndex(EventKind::kNetDevXmit, "rc");
inline constexpr size_t kName = FieldIndex(EventKind::kNetDevXmit, "name");
}  // namespace net_dev_xmit_field

/// irq_vectors:*_entry and *_exit.
namespace irq_vector_field {
static_assert(SameFields(EventKind::kIrqVectorEntry, EventKind::kIrqVectorExit));
inline constexpr size_t kVector = FieldIndex(EventKind::kIrqVectorEntry, "vector");
}  // namespace irq_vector_field

}  // namespace napiscope
