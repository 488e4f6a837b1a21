#include "load/event_ingest.h"

#include <algorithm>
#include <bit>

#include <traceevent/event-parse.h>

namespace napiscope::internal {

namespace {
// A leaf whose stream is done: after every real head.
constexpr TimestampNs kDoneTs = std::numeric_limits<TimestampNs>::max();
constexpr int kDoneStream = std::numeric_limits<int>::max();
}  // namespace

void StreamTournament::Build() {
  live_ = leaves_.size();
  const size_t width = std::bit_ceil(std::max<size_t>(live_, 1));
  leaves_.resize(width, {kDoneTs, kDoneStream});
  losers_.assign(width, 0);
  // Winners of every node, leaves at [width, 2 * width); the losers stay in losers_.
  std::vector<uint32_t> winners(2 * width);
  for (size_t leaf = 0; leaf < width; ++leaf) winners[width + leaf] = static_cast<uint32_t>(leaf);
  for (size_t node = width - 1; node > 0; --node) {
    const uint32_t left = winners[2 * node];
    const uint32_t right = winners[2 * node + 1];
    const bool right_first = Before(leaves_[right], leaves_[left]);
    winners[node] = right_first ? right : left;
    losers_[node] = right_first ? left : right;
  }
  winner_ = winners[1];
}

void StreamTournament::PopTop() {
  leaves_[winner_] = {kDoneTs, kDoneStream};
  --live_;
  Replay();
}

EventIngest::EventIngest(TraceContext& context, EventSink& sink, tep_handle* saved_comms)
    : context_(context), sink_(sink), saved_comms_(saved_comms) {}

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
  if (saved_comms_ != nullptr &&
      (event.cpu >= last_pid_.size() || event.pid != last_pid_[event.cpu])) {
    NameOnFirstSight(event);
  }
  if (line_comm != 0) context_.tasks.ObserveComm(event.pid, line_comm, event.ts_ns);
  context_.tasks.ObserveEvent(event);
  ++delivered_;
  sink_.OnEvent(event);
}

void EventIngest::NameOnFirstSight(const Event& event) {
  if (event.cpu >= last_pid_.size()) last_pid_.resize(event.cpu + 1, -1);
  if (event.pid == last_pid_[event.cpu]) return;
  last_pid_[event.cpu] = event.pid;
  if (!FirstSight(event.pid)) return;
  const char* comm = tep_data_comm_from_pid(saved_comms_, event.pid);
  if (comm != nullptr && comm[0] != '<') {
    context_.tasks.SetInitialComm(event.pid, context_.strings.Intern(comm));
  }
}

void EventIngest::DeliverMissed(Event& event, TimestampNs last_before_ns) {
  event.ts_ns = Clamp(event.ts_ns);
  context_.missed.push_back({event.cpu, event.ts_ns, last_before_ns, event.missed.count});
  sink_.OnEvent(event);
}

}  // namespace napiscope::internal
