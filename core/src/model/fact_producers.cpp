#include "napiscope/producers.h"

#include "model/fact_bus.h"
#include "model/softirq_wait_producer.h"
#include "model/thread_activation_producer.h"
#include "model/wake_wait_producer.h"

namespace napiscope {
namespace internal {

// The producers run in this order at each event: the task on each CPU first (the others read
// it), then softirq waits, then wake-to-run waits.
struct FactProducerParts {
  explicit FactProducerParts(const ContextTracker* tracker)
      : threads(tracker, &bus), softirqs(tracker, &threads, &bus), wakes(tracker, &threads, &bus) {
    threads.PairWakesWith(&wakes);  // one rule pairs every waking with its run
  }

  FactBus bus;
  ThreadActivationProducer threads;
  SoftirqWaitProducer softirqs;
  WakeWaitProducer wakes;
};

}  // namespace internal

FactProducers::FactProducers(const ContextTracker* tracker)
    : parts_(std::make_unique<internal::FactProducerParts>(tracker)) {}

FactProducers::~FactProducers() = default;

void FactProducers::AddListener(FactListener* listener) {
  parts_->bus.listeners.push_back(listener);
}

void FactProducers::OnBegin(const TraceContext& context) {
  parts_->threads.OnBegin(context);
  parts_->wakes.OnBegin(context);
}

void FactProducers::OnEvent(const Event& event) {
  parts_->threads.OnEvent(event);
  parts_->softirqs.OnEvent(event);
  parts_->wakes.OnEvent(event);
}

void FactProducers::OnEnd() {}

void FactProducers::OnInterval(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  if (frame.kind != ContextKind::kTask) return;
  if (!IsServiceThreadClass(frame.task_class)) return;
  parts_->threads.OnTaskInterval(frame.pid, frame.name, frame.prio);
}

uint32_t FactProducers::PendingSoftirqs(uint16_t cpu) const { return parts_->softirqs.Mask(cpu); }

TimestampNs FactProducers::FirstRaiseNs(uint16_t cpu, uint32_t vec) const {
  return parts_->softirqs.FirstRaiseNs(cpu, vec);
}

int32_t FactProducers::CurrentPid(uint16_t cpu) const { return parts_->threads.CurrentPid(cpu); }

bool FactProducers::IsRunning(int32_t pid) const { return parts_->threads.IsRunning(pid); }

const ServiceThread* FactProducers::FindServiceThread(int32_t pid) const {
  return parts_->threads.Find(pid);
}

std::vector<ServiceThread> FactProducers::ServiceThreads() const {
  return parts_->threads.Threads();
}

}  // namespace napiscope
