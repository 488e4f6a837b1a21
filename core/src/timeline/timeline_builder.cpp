#include "napiscope/timeline_builder.h"

#include <algorithm>
#include <iterator>

namespace napiscope {
namespace {

uint8_t FlagsOf(const ContextInterval& interval) {
  uint8_t flags = 0;
  if (!interval.frame.start_known) flags |= kItemStartUnknown;
  if (!interval.end_known) flags |= kItemEndUnknown;
  if (interval.suspended) flags |= kItemSuspended;
  if (interval.frame.resumed) flags |= kItemResumed;
  return flags;
}

}  // namespace

TimelineBuilder::TimelineBuilder(TimelineFacts facts) {
  if (facts == TimelineFacts::kOwnProducers) ResetOwnFacts();
}

TimelineBuilder::~TimelineBuilder() = default;

void TimelineBuilder::ResetOwnFacts() {
  own_facts_ = std::make_unique<FactProducers>();
  own_facts_->AddListener(this);
}

void TimelineBuilder::OnBegin(const TraceContext& context) {
  trace_ = &context;
  if (own_facts_) own_facts_->OnBegin(context);
  cpus_.clear();
  for (int cpu = 0; cpu < context.meta.cpus; ++cpu) Cpu(static_cast<uint16_t>(cpu));
}

TimelineBuilder::CpuState& TimelineBuilder::Cpu(uint16_t cpu) {
  while (cpus_.size() <= cpu) {
    CpuState& state = cpus_.emplace_back();
    state.last_ts_ns = -1;
  }
  return cpus_[cpu];
}

uint32_t TimelineBuilder::Intern(const TimelineItem& item) {
  auto [it, inserted] = item_ids_.try_emplace(item, static_cast<uint32_t>(timeline_.items_.size()));
  if (inserted) timeline_.items_.push_back(item);
  return it->second;
}

uint16_t TimelineBuilder::HandlerKey(const IrqHandlerKey& handler) {
  auto [it, inserted] =
      handler_keys_.try_emplace(handler, static_cast<uint16_t>(timeline_.handlers_.size()));
  if (inserted) timeline_.handlers_.push_back(handler);
  return it->second;
}

uint16_t TimelineBuilder::DeviceKey(StringId dev) {
  auto [it, inserted] =
      device_keys_.try_emplace(dev, static_cast<uint16_t>(timeline_.napi_devices_.size()));
  if (inserted) timeline_.napi_devices_.push_back(dev);
  return it->second;
}

void TimelineBuilder::AddInterval(uint16_t cpu, Lane lane, TimestampNs start_ns, TimestampNs end_ns,
                                  const TimelineItem& item) {
  Cpu(cpu).lanes[static_cast<int>(lane)].Add(start_ns, end_ns, Intern(item));
}

void TimelineBuilder::OnInterval(const ContextInterval& interval) {
  if (own_facts_) own_facts_->OnInterval(interval);
  const ContextFrame& frame = interval.frame;
  TimelineItem item;
  item.flags = FlagsOf(interval);
  item.task_class = frame.task_class;
  item.prio = frame.prio;
  item.pid = frame.pid;
  item.name = frame.name;
  switch (frame.kind) {
    case ContextKind::kTask:
      if (frame.task_class == TaskClass::kIdle) return;
      item.lane = Lane::kTask;
      item.key = static_cast<uint16_t>(frame.task_class);
      break;
    case ContextKind::kHardirq:
      item.lane = Lane::kHardirq;
      item.irq = frame.irq;
      item.key = HandlerKey({frame.irq, frame.name});
      item.pid = 0;
      item.prio = -1;
      item.task_class = TaskClass::kOther;
      break;
    case ContextKind::kSoftirq:
      item.lane = Lane::kSoftirq;
      item.vec = frame.vec;
      item.site = frame.site;
      item.key = static_cast<uint16_t>(frame.vec);
      item.name = trace_ ? trace_->tasks.CommAt(frame.pid, frame.start_ns) : 0;
      // The idle task is swapper/N of its CPU (TaskNameOnCpu), interned by the tracker.
      if (frame.pid == 0 && trace_) trace_->strings.Find(IdleTaskName(frame.cpu), &item.name);
      break;
    case ContextKind::kNapiPoll:
      item.lane = Lane::kNapiPoll;
      item.site = frame.site;
      item.work = frame.work;
      item.budget = frame.budget;
      item.key = DeviceKey(frame.name);
      if (frame.budget > 0 && frame.work >= frame.budget) item.flags |= kItemExhausted;
      break;
  }
  AddInterval(frame.cpu, item.lane, frame.start_ns, interval.end_ns, item);
}

void TimelineBuilder::OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
  std::vector<TimelineGap>& gaps = Cpu(cpu).gaps;
  if (!gaps.empty() && gaps.back().end_ns >= start_ns) {
    gaps.back().end_ns = std::max(gaps.back().end_ns, end_ns);
  } else {
    gaps.push_back({start_ns, end_ns});
  }
}

void TimelineBuilder::OnEvent(const Event& event) {
  if (own_facts_) own_facts_->OnEvent(event);
  if (event.kind == EventKind::kMissedEvents) {
    // A marker always lost something; a zero count means the file did not say how much.
    missed_.push_back({event.cpu, event.ts_ns, Cpu(event.cpu).last_ts_ns,
                       event.missed.count > 0 ? event.missed.count : -1});
    return;
  }
  ++timeline_.events_;
  Cpu(event.cpu).last_ts_ns = event.ts_ns;
  if (!saw_event_) {
    timeline_.start_ns_ = event.ts_ns;
    saw_event_ = true;
  }
  timeline_.end_ns_ = std::max(timeline_.end_ns_, event.ts_ns);
}

void TimelineBuilder::OnSoftirqWait(const SoftirqWaitFact& wait) {
  if (!wait.paired() || wait.vec >= kSoftirqVectorCount) return;
  TimelineItem item;
  item.lane = Lane::kSoftirqWait;
  item.vec = wait.vec;
  item.key = static_cast<uint16_t>(wait.vec);
  AddInterval(wait.cpu, Lane::kSoftirqWait, wait.raise_ns, wait.entry_ns, item);
}

// Activations dropped as unknown (events lost in between) are not drawn.
void TimelineBuilder::OnThreadActivation(const ThreadActivationFact& fact) {
  if (fact.lost) return;
  Activation activation;
  activation.from_ns = fact.woken_ns;
  activation.to_ns = fact.run_ns;
  activation.pid = fact.pid;
  activation.irq = fact.irq;
  activation.comm = fact.comm;
  activation.from_cpu = fact.from_cpu;
  activation.to_cpu = fact.to_cpu;
  activation.kind = fact.task_class == TaskClass::kNapiKthread ? ActivationKind::kNapiKthread
                    : fact.task_class == TaskClass::kKsoftirqd ||
                            fact.task_class == TaskClass::kSoftirqThread  // ksoftirqd's work
                        ? ActivationKind::kKsoftirqd
                        : ActivationKind::kIrqThread;
  activation.exact = fact.exact;
  activations_.push_back(activation);
}

Timeline TimelineBuilder::Finish() {
  Timeline& t = timeline_;
  t.traits_.resize(t.items_.size());
  for (size_t i = 0; i < t.items_.size(); ++i) {
    t.traits_[i] = {t.items_[i].key, (t.items_[i].flags & kItemExhausted) != 0};
  }
  t.cpus_.resize(cpus_.size());
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
    for (int lane = 0; lane < kLaneCount; ++lane) {
      t.cpus_[cpu].lanes[lane].Build(cpus_[cpu].lanes[lane].Take(), t.traits_);
    }
    t.cpus_[cpu].gaps = std::move(cpus_[cpu].gaps);
  }
  for (const MissedEventsMark& mark : missed_) {
    if (mark.cpu >= t.cpus_.size()) continue;
    std::vector<TimelineGap>& gaps = t.cpus_[mark.cpu].gaps;
    auto after =
        std::upper_bound(gaps.begin(), gaps.end(), mark.ts_ns,
                         [](TimestampNs ts, const TimelineGap& g) { return ts < g.start_ns; });
    if (after != gaps.begin() && std::prev(after)->end_ns >= mark.ts_ns) {
      TimelineGap& gap = *std::prev(after);
      gap.lost_events = mark.count < 0 || gap.lost_events < 0 ? -1 : gap.lost_events + mark.count;
    } else {
      // Lost before the CPU's first event: unknown from the trace start (or its last event).
      TimestampNs start = mark.last_before_ns >= 0 ? mark.last_before_ns : t.start_ns_;
      if (start < mark.ts_ns) gaps.insert(after, {start, mark.ts_ns, mark.count});
    }
  }
  t.activations_ = std::move(activations_);
  activations_.clear();
  std::stable_sort(t.activations_.begin(), t.activations_.end(),
                   [](const Activation& a, const Activation& b) { return a.from_ns < b.from_ns; });
  for (const Activation& activation : t.activations_) {
    if (!activation.cross_cpu() || !activation.exact) continue;
    t.cross_cpu_.push_back(activation);
    t.max_cross_latency_ns_ =
        std::max(t.max_cross_latency_ns_, activation.to_ns - activation.from_ns);
  }
  t.items_.shrink_to_fit();
  t.activations_.shrink_to_fit();
  t.cross_cpu_.shrink_to_fit();
  Timeline result = std::move(timeline_);
  timeline_ = Timeline();
  cpus_.clear();
  item_ids_.clear();
  handler_keys_.clear();
  device_keys_.clear();
  missed_.clear();
  saw_event_ = false;
  if (own_facts_) ResetOwnFacts();
  return result;
}

}  // namespace napiscope
