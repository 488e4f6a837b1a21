// NAPI polling per instance, CPU and context: polls, work, budget exhaustion and repoll
// chains, packets per poll, poll time, and the packets handed up the stack inside the polls.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/duration_recorder.h"
#include "napiscope/contexts.h"
#include "napiscope/report.h"

namespace napiscope::internal {

/// Listens to the tracker's NAPI poll intervals (each napi:napi_poll closes one, nested in
/// its softirq or kthread) and to net:netif_receive_skb and lost-events markers. Add it to a
/// FanoutSink after the tracker and as a listener of the tracker.
class NapiPolls : public EventSink, public ContextListener {
 public:
  explicit NapiPolls(const AnalysisWindow& window) : window_(window) {}

  /// Keeps `context` to read device names (the backlog's kBacklogNapiDevice).
  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event& event) override;
  ContextReads Reads() const override { return {false, ContextKindBit(ContextKind::kNapiPoll)}; }
  void OnInterval(const ContextInterval& interval) override;

  /// Rows by device, napi, CPU, context; netif_receive_skb is -1 unless `skb_recorded`.
  std::vector<NapiRow> Rows(const TraceContext& context, bool skb_recorded) const;

 private:
  struct Key {
    uint64_t napi;
    StringId dev;
    uint16_t cpu;
    SoftirqSite context;
    auto Tie() const { return std::tie(napi, dev, cpu, context); }
    bool operator<(const Key& other) const { return Tie() < other.Tie(); }
    bool operator==(const Key& other) const { return Tie() == other.Tie(); }
  };
  struct Row {
    int32_t budget = 0;
    int64_t polls = 0;
    int64_t exhausted = 0;
    int64_t work = 0;
    int64_t max_chain = 0;
    TimestampNs max_chain_start_ns = 0;
    TimestampNs max_chain_end_ns = 0;
    int64_t dropped_chains = 0;
    int64_t skbs = 0;
    int32_t kthread_pid = -1;  // the NAPI kthread the polls ran in (threaded NAPI)
    absl::flat_hash_map<int32_t, int64_t> work_histogram;  // work -> polls; bounded by budget
    DurationRecorder poll_time;
  };
  struct Chain {
    int64_t length = 0;  // consecutive exhausted polls so far
    TimestampNs start_ns = 0;  // the first one began here
    uint16_t cpu = 0;    // where the last poll ran
    Row* row = nullptr;  // the row of the last poll, null when it was outside the window
    // The row of the last poll in the window and its key: the next poll of this NAPI instance
    // nearly always has the same key, so the row map is searched only when it moves.
    Key cached_key{};
    Row* cached_row = nullptr;
  };
  struct Received {
    TimestampNs ts_ns;
    StringId dev;
  };

  // Whether a poll of `dev` is a backlog poll (netif_rx, RPS, loopback), whose packets are
  // handed up on their own devices.
  bool IsBacklog(StringId dev) const;

  const TraceContext* context_ = nullptr;
  AnalysisWindow window_;
  std::map<Key, Row> rows_;
  absl::flat_hash_map<uint64_t, Chain> chains_;  // by napi
  std::vector<std::vector<Received>> received_;  // per CPU, since its last poll
};

}  // namespace napiscope::internal
