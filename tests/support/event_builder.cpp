#include "support/event_builder.h"

#include <algorithm>

namespace napiscope::testing {

EventBuilder::EventBuilder(int cpus) {
  context_.meta.path = "builder";
  context_.meta.cpus = cpus;
}

EventBuilder& EventBuilder::Task(int32_t pid, const std::string& comm, int16_t prio) {
  context_.tasks.SetInitialComm(pid, Intern(comm));
  context_.tasks.ObservePrio(pid, prio);
  return *this;
}

Event& EventBuilder::Add(EventKind kind, int cpu, TimestampNs ts, int32_t current) {
  Event& event = events_.emplace_back();
  event.kind = kind;
  event.cpu = static_cast<uint16_t>(cpu);
  event.ts_ns = ts;
  event.pid = current;
  event.name = Intern(std::string(EventKindName(kind)));
  return event;
}

EventBuilder& EventBuilder::Switch(int cpu, TimestampNs ts, int32_t prev, uint16_t prev_state,
                                   int32_t next) {
  Event& e = Add(EventKind::kSchedSwitch, cpu, ts, prev);
  const TaskRecord* p = context_.tasks.Find(prev);
  const TaskRecord* n = context_.tasks.Find(next);
  e.sched_switch = {prev,
                    next,
                    static_cast<int16_t>(p ? p->last_prio : 120),
                    static_cast<int16_t>(n ? n->last_prio : 120),
                    prev_state,
                    context_.tasks.CommOf(prev),
                    context_.tasks.CommOf(next)};
  return *this;
}

EventBuilder& EventBuilder::Waking(int cpu, TimestampNs ts, int32_t current, int32_t pid,
                                   int target_cpu) {
  const TaskRecord* t = context_.tasks.Find(pid);
  Add(EventKind::kSchedWaking, cpu, ts, current).wake = {
      pid, static_cast<int16_t>(t ? t->last_prio : 120), static_cast<int16_t>(target_cpu),
      context_.tasks.CommOf(pid)};
  return *this;
}

EventBuilder& EventBuilder::Wakeup(int cpu, TimestampNs ts, int32_t current, int32_t pid,
                                   int target_cpu) {
  Waking(cpu, ts, current, pid, target_cpu);
  events_.back().kind = EventKind::kSchedWakeup;
  events_.back().name = Intern("sched_wakeup");
  return *this;
}

EventBuilder& EventBuilder::Migrate(int cpu, TimestampNs ts, int32_t current, int32_t pid,
                                    int from, int to) {
  const TaskRecord* t = context_.tasks.Find(pid);
  Add(EventKind::kSchedMigrateTask, cpu, ts, current).migrate = {
      pid, static_cast<int16_t>(t ? t->last_prio : 120), static_cast<int16_t>(from),
      static_cast<int16_t>(to), context_.tasks.CommOf(pid)};
  return *this;
}

EventBuilder& EventBuilder::PiSetprio(int cpu, TimestampNs ts, int32_t current, int32_t pid,
                                      int16_t old_prio, int16_t new_prio) {
  Add(EventKind::kSchedPiSetprio, cpu, ts, current).pi = {pid, old_prio, new_prio,
                                                          context_.tasks.CommOf(pid)};
  return *this;
}

EventBuilder& EventBuilder::IrqEntry(int cpu, TimestampNs ts, int32_t current, int32_t irq,
                                     const std::string& handler) {
  Add(EventKind::kIrqHandlerEntry, cpu, ts, current).irq = {irq, 0, Intern(handler)};
  return Flags(kHardirq | kIrqsOff);
}

EventBuilder& EventBuilder::IrqExit(int cpu, TimestampNs ts, int32_t current, int32_t irq,
                                    int32_t ret) {
  Add(EventKind::kIrqHandlerExit, cpu, ts, current).irq = {irq, ret, 0};
  return Flags(kHardirq | kIrqsOff);
}

EventBuilder& EventBuilder::VectorEntry(int cpu, TimestampNs ts, int32_t current,
                                        const std::string& name, int32_t vector) {
  Event& e = Add(EventKind::kIrqVectorEntry, cpu, ts, current);
  e.name = Intern(name + "_entry");
  e.irq = {vector, 0, Intern(name)};
  return Flags(kHardirq | kIrqsOff);
}

EventBuilder& EventBuilder::VectorExit(int cpu, TimestampNs ts, int32_t current,
                                       const std::string& name, int32_t vector) {
  Event& e = Add(EventKind::kIrqVectorExit, cpu, ts, current);
  e.name = Intern(name + "_exit");
  e.irq = {vector, 0, Intern(name)};
  return Flags(kHardirq | kIrqsOff);
}

EventBuilder& EventBuilder::Raise(int cpu, TimestampNs ts, int32_t current, uint32_t vec) {
  Add(EventKind::kSoftirqRaise, cpu, ts, current).softirq = {vec};
  return *this;
}

EventBuilder& EventBuilder::SoftirqEntry(int cpu, TimestampNs ts, int32_t current, uint32_t vec) {
  Add(EventKind::kSoftirqEntry, cpu, ts, current).softirq = {vec};
  return Flags(kSoftirq);
}

EventBuilder& EventBuilder::SoftirqExit(int cpu, TimestampNs ts, int32_t current, uint32_t vec) {
  Add(EventKind::kSoftirqExit, cpu, ts, current).softirq = {vec};
  return Flags(kSoftirq);
}

EventBuilder& EventBuilder::NapiPoll(int cpu, TimestampNs ts, int32_t current, uint64_t napi,
                                     const std::string& dev, int32_t work, int32_t budget) {
  Add(EventKind::kNapiPoll, cpu, ts, current).napi = {napi, Intern(dev), work, budget};
  return *this;
}

EventBuilder& EventBuilder::NetifReceiveSkb(int cpu, TimestampNs ts, int32_t current,
                                            const std::string& dev, uint32_t len) {
  Add(EventKind::kNetifReceiveSkb, cpu, ts, current).net = {Intern(dev), len, 0};
  return *this;
}

EventBuilder& EventBuilder::Missed(int cpu, TimestampNs ts, int64_t count) {
  Event& e = Add(EventKind::kMissedEvents, cpu, ts, -1);
  e.name = 0;
  e.missed = {count};
  return *this;
}

EventBuilder& EventBuilder::Other(int cpu, TimestampNs ts, int32_t current,
                                  const std::string& name) {
  Add(EventKind::kOther, cpu, ts, current).name = Intern(name);
  return *this;
}

EventBuilder& EventBuilder::Flags(uint8_t flags) {
  events_.back().flags = flags;
  return *this;
}

void EventBuilder::Play(EventSink& sink) {
  std::stable_sort(events_.begin(), events_.end(),
                   [](const Event& a, const Event& b) { return a.ts_ns < b.ts_ns; });
  context_.missed.clear();
  std::vector<TimestampNs> last(context_.meta.cpus, -1);
  for (const Event& e : events_) {
    if (e.kind == EventKind::kMissedEvents) {
      context_.missed.push_back({e.cpu, e.ts_ns, last[e.cpu], e.missed.count});
    }
    last[e.cpu] = e.ts_ns;
  }
  sink.OnBegin(context_);
  for (const Event& e : events_) {
    context_.tasks.ObserveEvent(e);
    sink.OnEvent(e);
  }
  sink.OnEnd();
}

}  // namespace napiscope::testing
