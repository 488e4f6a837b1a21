#include "load/event_ingest.h"

#include <algorithm>
#include <functional>

#include <traceevent/event-parse.h>

namespace napiscope::internal {

void StreamHeap::Build() { std::make_heap(heap_.begin(), heap_.end(), std::greater<>()); }

void StreamHeap::ReplaceTop(TimestampNs ts_ns) {
  heap_.front().first = ts_ns;
  SiftDown();
}

void StreamHeap::ReplaceTop(TimestampNs ts_ns, int stream) {
  heap_.front() = {ts_ns, stream};
  SiftDown();
}

void StreamHeap::PopTop() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  SiftDown();
}

void StreamHeap::SiftDown() {
  size_t size = heap_.size();
  if (size < 2) return;
  size_t at = 0;
  std::pair<TimestampNs, int> moving = heap_[0];
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && heap_[child + 1] < heap_[child]) ++child;
    if (!(heap_[child] < moving)) break;
    heap_[at] = heap_[child];
    at = child;
  }
  heap_[at] = moving;
}

EventIngest::EventIngest(TraceContext& context, EventSink& sink, tep_handle* saved_comms)
    : context_(context), sink_(sink), saved_comms_(saved_comms) {}

TimestampNs EventIngest::Clamp(TimestampNs ts_ns) {
  if (ts_ns < delivered_ns_) {
    ++clamped_;
    return delivered_ns_;
  }
  delivered_ns_ = ts_ns;
  return ts_ns;
}

// kernel_stack / user_stack records repeat the event before them with a stack; analyses that
// look at "the next event on the CPU" must not see them.
bool EventIngest::IsStackRecord(StringId name) {
  if (name >= stack_name_.size()) stack_name_.resize(name + 64, 0);
  uint8_t& known = stack_name_[name];
  if (known == 0) {
    std::string_view text = context_.strings.Get(name);
    known = text == "kernel_stack" || text == "user_stack" ? 1 : 2;
  }
  return known == 1;
}

bool EventIngest::FirstSight(int32_t pid) {
  if (pid >= 0 && pid < kDensePids) {
    if (static_cast<size_t>(pid) >= dense_seen_.size()) dense_seen_.resize(pid + 1024, false);
    if (dense_seen_[pid]) return false;
    dense_seen_[pid] = true;
    return true;
  }
  return sparse_seen_.insert(pid).second;
}

void EventIngest::Deliver(Event& event, StringId line_comm) {
  if (event.kind == EventKind::kOther && IsStackRecord(event.name)) {
    ++context_.meta.stack_records;
    return;
  }
  event.ts_ns = Clamp(event.ts_ns);
  if (saved_comms_ != nullptr) {
    if (event.cpu >= last_pid_.size()) last_pid_.resize(event.cpu + 1, -1);
    if (event.pid != last_pid_[event.cpu]) {
      last_pid_[event.cpu] = event.pid;
      if (FirstSight(event.pid)) {
        const char* comm = tep_data_comm_from_pid(saved_comms_, event.pid);
        if (comm != nullptr && comm[0] != '<') {
          context_.tasks.SetInitialComm(event.pid, context_.strings.Intern(comm));
        }
      }
    }
  }
  if (line_comm != 0) context_.tasks.ObserveComm(event.pid, line_comm, event.ts_ns);
  context_.tasks.ObserveEvent(event);
  ++delivered_;
  sink_.OnEvent(event);
}

void EventIngest::DeliverMissed(Event& event, TimestampNs last_before_ns) {
  event.ts_ns = Clamp(event.ts_ns);
  context_.missed.push_back({event.cpu, event.ts_ns, last_before_ns, event.missed.count});
  sink_.OnEvent(event);
}

}  // namespace napiscope::internal
