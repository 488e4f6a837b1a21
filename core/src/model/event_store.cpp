#include "napiscope/event_store.h"

#include <algorithm>

namespace napiscope {
namespace {

template <typename T>
uint32_t Append(std::vector<T>& table, const T& value) {
  table.push_back(value);
  return static_cast<uint32_t>(table.size() - 1);
}

template <typename T>
size_t CapacityBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

void EventStore::OnBegin(const TraceContext& context) {
  cpus_.assign(std::max(context.meta.cpus, 1), Columns{});
}

void EventStore::OnEvent(const Event& event) {
  if (event.cpu >= cpus_.size()) cpus_.resize(event.cpu + 1);
  Columns& c = cpus_[event.cpu];
  uint32_t index = 0;
  switch (event.kind) {
    case EventKind::kSchedSwitch:
      index = Append(fields_.sched_switch, event.sched_switch);
      break;
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      index = Append(fields_.wake, event.wake);
      break;
    case EventKind::kSchedMigrateTask:
      index = Append(fields_.migrate, event.migrate);
      break;
    case EventKind::kSchedPiSetprio:
      index = Append(fields_.pi, event.pi);
      break;
    case EventKind::kSchedProcessFork:
      index = Append(fields_.fork, event.fork);
      break;
    case EventKind::kSchedProcessExit:
      index = Append(fields_.exit, event.exit);
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      index = Append(fields_.irq, event.irq);
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      index = Append(fields_.softirq, event.softirq);
      break;
    case EventKind::kNapiPoll:
      index = Append(fields_.napi, event.napi);
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      index = Append(fields_.net, event.net);
      break;
    case EventKind::kMissedEvents:
      index = Append(fields_.missed, event.missed);
      break;
    case EventKind::kOther:
    case EventKind::kCount:
      break;
  }
  c.ts_ns.push_back(event.ts_ns);
  c.pid.push_back(event.pid);
  c.kind.push_back(event.kind);
  c.flags.push_back(event.flags);
  c.name.push_back(event.name);
  c.field_index.push_back(index);
}

void EventStore::OnEnd() {
  for (Columns& c : cpus_) {
    c.ts_ns.shrink_to_fit();
    c.pid.shrink_to_fit();
    c.kind.shrink_to_fit();
    c.flags.shrink_to_fit();
    c.name.shrink_to_fit();
    c.field_index.shrink_to_fit();
  }
  FieldTables& f = fields_;
  f.sched_switch.shrink_to_fit();
  f.wake.shrink_to_fit();
  f.migrate.shrink_to_fit();
  f.pi.shrink_to_fit();
  f.fork.shrink_to_fit();
  f.exit.shrink_to_fit();
  f.irq.shrink_to_fit();
  f.softirq.shrink_to_fit();
  f.napi.shrink_to_fit();
  f.net.shrink_to_fit();
  f.missed.shrink_to_fit();
}

size_t EventStore::size(uint16_t cpu) const {
  return cpu < cpus_.size() ? cpus_[cpu].ts_ns.size() : 0;
}

size_t EventStore::total() const {
  size_t n = 0;
  for (const Columns& c : cpus_) n += c.ts_ns.size();
  return n;
}

Event EventStore::Get(uint16_t cpu, size_t i) const {
  const Columns& c = cpus_[cpu];
  Event event;
  event.ts_ns = c.ts_ns[i];
  event.pid = c.pid[i];
  event.cpu = cpu;
  event.kind = c.kind[i];
  event.flags = c.flags[i];
  event.name = c.name[i];
  uint32_t row = c.field_index[i];
  switch (event.kind) {
    case EventKind::kSchedSwitch:
      event.sched_switch = fields_.sched_switch[row];
      break;
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      event.wake = fields_.wake[row];
      break;
    case EventKind::kSchedMigrateTask:
      event.migrate = fields_.migrate[row];
      break;
    case EventKind::kSchedPiSetprio:
      event.pi = fields_.pi[row];
      break;
    case EventKind::kSchedProcessFork:
      event.fork = fields_.fork[row];
      break;
    case EventKind::kSchedProcessExit:
      event.exit = fields_.exit[row];
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      event.irq = fields_.irq[row];
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      event.softirq = fields_.softirq[row];
      break;
    case EventKind::kNapiPoll:
      event.napi = fields_.napi[row];
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      event.net = fields_.net[row];
      break;
    case EventKind::kMissedEvents:
      event.missed = fields_.missed[row];
      break;
    case EventKind::kOther:
    case EventKind::kCount:
      break;
  }
  return event;
}

size_t EventStore::LowerBound(uint16_t cpu, TimestampNs ts_ns) const {
  if (cpu >= cpus_.size()) return 0;
  const std::vector<TimestampNs>& ts = cpus_[cpu].ts_ns;
  return static_cast<size_t>(std::lower_bound(ts.begin(), ts.end(), ts_ns) - ts.begin());
}

size_t EventStore::BytesUsed() const {
  size_t bytes = 0;
  for (const Columns& c : cpus_) {
    bytes += CapacityBytes(c.ts_ns) + CapacityBytes(c.pid) + CapacityBytes(c.kind) +
             CapacityBytes(c.flags) + CapacityBytes(c.name) + CapacityBytes(c.field_index);
  }
  const FieldTables& f = fields_;
  bytes += CapacityBytes(f.sched_switch) + CapacityBytes(f.wake) + CapacityBytes(f.migrate) +
           CapacityBytes(f.pi) + CapacityBytes(f.fork) + CapacityBytes(f.exit) +
           CapacityBytes(f.irq) + CapacityBytes(f.softirq) + CapacityBytes(f.napi) +
           CapacityBytes(f.net) + CapacityBytes(f.missed);
  return bytes;
}

}  // namespace napiscope
