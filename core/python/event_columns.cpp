#include "event_columns.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>

#include <absl/status/status.h>

namespace napiscope::python {

using K = EventKind;

// A column: the kinds that have it (none: every event has it) and how to read it from an event.
// Kernel field names are kept, except that the task fields of wakeup, migrate, pi_setprio and
// exit events are task_pid/task_prio/task_comm, so they do not clash with the common pid (the
// task current on the CPU).
struct ColumnSpec {
  const char* name;
  ColumnType type;
  std::initializer_list<EventKind> kinds;
  uint64_t (*read)(const Event& event);
};

namespace {

constexpr std::initializer_list<EventKind> kWakeKinds = {K::kSchedWaking, K::kSchedWakeup,
                                                         K::kSchedWakeupNew};
constexpr std::initializer_list<EventKind> kTaskKinds = {
    K::kSchedWaking, K::kSchedWakeup, K::kSchedWakeupNew, K::kSchedMigrateTask,
    K::kSchedPiSetprio, K::kSchedProcessExit};
constexpr std::initializer_list<EventKind> kIrqKinds = {K::kIrqHandlerEntry, K::kIrqHandlerExit,
                                                        K::kIrqVectorEntry, K::kIrqVectorExit};
constexpr std::initializer_list<EventKind> kDevKinds = {K::kNapiPoll, K::kNetifReceiveSkb,
                                                        K::kNetifRx, K::kNetDevXmit};
constexpr std::initializer_list<EventKind> kNetKinds = {K::kNetifReceiveSkb, K::kNetifRx,
                                                        K::kNetDevXmit};

uint64_t U(int64_t value) { return static_cast<uint64_t>(value); }

int64_t TaskPid(const Event& e) {
  switch (e.kind) {
    case K::kSchedMigrateTask: return e.migrate.pid;
    case K::kSchedPiSetprio: return e.pi.pid;
    case K::kSchedProcessExit: return e.exit.pid;
    default: return e.wake.pid;
  }
}

int64_t TaskPrio(const Event& e) {
  switch (e.kind) {
    case K::kSchedMigrateTask: return e.migrate.prio;
    case K::kSchedProcessExit: return e.exit.prio;
    case K::kSchedPiSetprio: return -1;
    default: return e.wake.prio;
  }
}

StringId TaskComm(const Event& e) {
  switch (e.kind) {
    case K::kSchedMigrateTask: return e.migrate.comm;
    case K::kSchedPiSetprio: return e.pi.comm;
    case K::kSchedProcessExit: return e.exit.comm;
    default: return e.wake.comm;
  }
}

const ColumnSpec kSpecs[] = {
    {"ts_ns", ColumnType::kInt64, {}, [](const Event& e) { return U(e.ts_ns); }},
    {"cpu", ColumnType::kUint16, {}, [](const Event& e) { return U(e.cpu); }},
    {"pid", ColumnType::kInt32, {}, [](const Event& e) { return U(e.pid); }},
    {"kind", ColumnType::kUint8, {}, [](const Event& e) { return U(static_cast<int>(e.kind)); }},
    {"flags", ColumnType::kUint8, {}, [](const Event& e) { return U(e.flags); }},
    {"event", ColumnType::kString, {}, [](const Event& e) { return U(e.name); }},
    {"prev_comm", ColumnType::kString, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.prev_comm); }},
    {"prev_pid", ColumnType::kInt32, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.prev_pid); }},
    {"prev_prio", ColumnType::kInt16, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.prev_prio); }},
    {"prev_state", ColumnType::kInt32, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.prev_state); }},
    {"next_comm", ColumnType::kString, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.next_comm); }},
    {"next_pid", ColumnType::kInt32, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.next_pid); }},
    {"next_prio", ColumnType::kInt16, {K::kSchedSwitch},
     [](const Event& e) { return U(e.sched_switch.next_prio); }},
    {"task_comm", ColumnType::kString, kTaskKinds, [](const Event& e) { return U(TaskComm(e)); }},
    {"task_pid", ColumnType::kInt32, kTaskKinds, [](const Event& e) { return U(TaskPid(e)); }},
    {"task_prio", ColumnType::kInt16, kTaskKinds, [](const Event& e) { return U(TaskPrio(e)); }},
    {"target_cpu", ColumnType::kInt16, kWakeKinds,
     [](const Event& e) { return U(e.wake.target_cpu); }},
    {"orig_cpu", ColumnType::kInt16, {K::kSchedMigrateTask},
     [](const Event& e) { return U(e.migrate.orig_cpu); }},
    {"dest_cpu", ColumnType::kInt16, {K::kSchedMigrateTask},
     [](const Event& e) { return U(e.migrate.dest_cpu); }},
    {"oldprio", ColumnType::kInt16, {K::kSchedPiSetprio},
     [](const Event& e) { return U(e.pi.old_prio); }},
    {"newprio", ColumnType::kInt16, {K::kSchedPiSetprio},
     [](const Event& e) { return U(e.pi.new_prio); }},
    {"parent_pid", ColumnType::kInt32, {K::kSchedProcessFork},
     [](const Event& e) { return U(e.fork.parent_pid); }},
    {"child_comm", ColumnType::kString, {K::kSchedProcessFork},
     [](const Event& e) { return U(e.fork.child_comm); }},
    {"child_pid", ColumnType::kInt32, {K::kSchedProcessFork},
     [](const Event& e) { return U(e.fork.child_pid); }},
    {"irq", ColumnType::kInt32, kIrqKinds, [](const Event& e) { return U(e.irq.irq); }},
    {"handler", ColumnType::kString, kIrqKinds, [](const Event& e) { return U(e.irq.handler); }},
    {"ret", ColumnType::kInt32, kIrqKinds, [](const Event& e) { return U(e.irq.ret); }},
    {"vec", ColumnType::kInt16,
     {K::kSoftirqRaise, K::kSoftirqEntry, K::kSoftirqExit},
     [](const Event& e) { return U(e.softirq.vec); }},
    {"napi", ColumnType::kUint64, {K::kNapiPoll}, [](const Event& e) { return e.napi.napi; }},
    {"dev", ColumnType::kString, kDevKinds,
     [](const Event& e) { return U(e.kind == K::kNapiPoll ? e.napi.dev : e.net.dev); }},
    {"work", ColumnType::kInt32, {K::kNapiPoll}, [](const Event& e) { return U(e.napi.work); }},
    {"budget", ColumnType::kInt32, {K::kNapiPoll},
     [](const Event& e) { return U(e.napi.budget); }},
    {"len", ColumnType::kInt64, kNetKinds, [](const Event& e) { return U(e.net.len); }},
    {"rc", ColumnType::kInt32, kNetKinds, [](const Event& e) { return U(e.net.rc); }},
    {"lost", ColumnType::kInt64, {K::kMissedEvents},
     [](const Event& e) { return U(e.missed.count); }},
};

bool HasKind(std::initializer_list<EventKind> kinds, EventKind kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// A column applies when every event has it or one of the asked kinds does.
bool Applies(const ColumnSpec& spec, const std::vector<EventKind>& kinds) {
  if (spec.kinds.size() == 0 || kinds.empty()) return true;
  return std::any_of(kinds.begin(), kinds.end(),
                     [&](EventKind kind) { return HasKind(spec.kinds, kind); });
}

template <typename T>
void Put(uint8_t* slot, uint64_t value) {
  T typed = static_cast<T>(value);
  std::memcpy(slot, &typed, sizeof typed);
}

}  // namespace

const char* DtypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kInt64: return "int64";
    case ColumnType::kInt32: return "int32";
    case ColumnType::kInt16: return "int16";
    case ColumnType::kUint16: return "uint16";
    case ColumnType::kUint8: return "uint8";
    case ColumnType::kUint64: return "uint64";
    case ColumnType::kString: return "uint32";
  }
  return "int64";
}

size_t ValueSize(ColumnType type) {
  switch (type) {
    case ColumnType::kInt64:
    case ColumnType::kUint64: return 8;
    case ColumnType::kInt32:
    case ColumnType::kString: return 4;
    case ColumnType::kInt16:
    case ColumnType::kUint16: return 2;
    case ColumnType::kUint8: return 1;
  }
  return 8;
}

void AppendValue(Column& column, uint64_t value) {
  size_t size = ValueSize(column.type);
  column.bytes.resize(column.bytes.size() + size);
  uint8_t* slot = column.bytes.data() + column.bytes.size() - size;
  switch (column.type) {
    case ColumnType::kInt64: Put<int64_t>(slot, value); break;
    case ColumnType::kUint64: Put<uint64_t>(slot, value); break;
    case ColumnType::kInt32: Put<int32_t>(slot, value); break;
    case ColumnType::kString: Put<uint32_t>(slot, value); break;
    case ColumnType::kInt16: Put<int16_t>(slot, value); break;
    case ColumnType::kUint16: Put<uint16_t>(slot, value); break;
    case ColumnType::kUint8: Put<uint8_t>(slot, value); break;
  }
}

std::vector<std::string> ColumnNames(const std::vector<EventKind>& kinds) {
  std::vector<std::string> names;
  for (const auto& spec : kSpecs) {
    if (Applies(spec, kinds)) names.emplace_back(spec.name);
  }
  return names;
}

absl::StatusOr<EventColumnSink> EventColumnSink::Make(std::vector<EventKind> kinds,
                                                      const std::vector<std::string>& columns,
                                                      std::vector<int> cpus, TimestampNs from_ns,
                                                      TimestampNs to_ns) {
  EventColumnSink sink;
  sink.kind_wanted_.assign(static_cast<size_t>(EventKind::kCount), kinds.empty());
  for (EventKind kind : kinds) sink.kind_wanted_[static_cast<size_t>(kind)] = true;
  sink.cpus_ = std::move(cpus);
  sink.from_ns_ = from_ns;
  sink.to_ns_ = to_ns;
  std::vector<std::string> names = columns.empty() ? ColumnNames(kinds) : columns;
  for (const std::string& name : names) {
    const ColumnSpec* found = nullptr;
    for (const auto& spec : kSpecs) {
      if (name == spec.name) found = &spec;
    }
    if (found == nullptr || !Applies(*found, kinds)) {
      return absl::InvalidArgumentError("no column '" + name + "' in events of the kinds asked");
    }
    sink.specs_.push_back(found);
    sink.columns_.push_back(Column{name, found->type, {}});
  }
  return sink;
}

void EventColumnSink::Reserve(size_t rows) {
  for (Column& column : columns_) column.bytes.reserve(rows * ValueSize(column.type));
}

bool EventColumnSink::Wants(EventKind kind) const {
  return kind_wanted_[static_cast<size_t>(kind)];
}

void EventColumnSink::OnEvent(const Event& event) {
  if (!Wants(event.kind) || event.ts_ns < from_ns_ || event.ts_ns > to_ns_) return;
  if (!cpus_.empty() && std::find(cpus_.begin(), cpus_.end(), event.cpu) == cpus_.end()) return;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const ColumnSpec& spec = *specs_[i];
    // A field the event's kind does not have reads as -1 (strings: "", id 0).
    uint64_t value = spec.kinds.size() == 0 || HasKind(spec.kinds, event.kind)
                         ? spec.read(event)
                         : (spec.type == ColumnType::kString ? 0 : U(-1));
    AppendValue(columns_[i], value);
  }
  ++rows_;
}

}  // namespace napiscope::python
