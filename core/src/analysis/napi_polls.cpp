#include "analysis/napi_polls.h"

#include <algorithm>

namespace napiscope::internal {
namespace {

// Received packets kept per CPU between two polls; past this the oldest are irrelevant
// (a poll hands up at most its budget, and budgets are far smaller).
constexpr size_t kMaxReceivedPerCpu = 4096;

CountStats CountStatsOf(const absl::flat_hash_map<int32_t, int64_t>& unordered) {
  const std::map<int32_t, int64_t> histogram(unordered.begin(), unordered.end());
  CountStats stats;
  int64_t sum = 0;
  for (const auto& [value, count] : histogram) {
    stats.count += count;
    sum += static_cast<int64_t>(value) * count;
  }
  if (stats.count == 0) return stats;
  stats.min = histogram.begin()->first;
  stats.max = histogram.rbegin()->first;
  stats.mean = static_cast<double>(sum) / static_cast<double>(stats.count);
  auto at_rank = [&](int64_t per_mille) {
    int64_t rank = NearestRank(per_mille, stats.count), seen = 0;
    for (const auto& [value, count] : histogram) {
      seen += count;
      if (seen >= rank) return static_cast<int64_t>(value);
    }
    return stats.max;
  };
  stats.p50 = at_rank(500);
  stats.p90 = at_rank(900);
  stats.p99 = at_rank(990);
  return stats;
}

}  // namespace

void NapiPolls::OnEvent(const Event& event) {
  if (event.cpu >= received_.size()) received_.resize(event.cpu + 1);
  std::vector<Received>& received = received_[event.cpu];
  switch (event.kind) {
    case EventKind::kNetifReceiveSkb:
      if (received.size() >= kMaxReceivedPerCpu) received.erase(received.begin());
      received.push_back({event.ts_ns, event.net.dev});
      break;
    case EventKind::kMissedEvents:
      // Polls may have been lost: chains that last polled here have an unknown length.
      received.clear();
      for (auto& [napi, chain] : chains_) {
        if (chain.cpu != event.cpu || chain.length == 0) continue;
        if (chain.row != nullptr) ++chain.row->dropped_chains;
        chain.length = 0;
      }
      break;
    default:
      break;
  }
}

void NapiPolls::OnInterval(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  if (frame.kind != ContextKind::kNapiPoll) return;
  std::vector<Received>* received = frame.cpu < received_.size() ? &received_[frame.cpu] : nullptr;
  bool exhausted = frame.budget > 0 && frame.work >= frame.budget;
  Chain& chain = chains_[frame.napi];
  if (exhausted && chain.length == 0) chain.start_ns = frame.start_ns;
  chain.length = exhausted ? chain.length + 1 : 0;
  chain.cpu = frame.cpu;
  chain.row = nullptr;
  if (!window_.Contains(interval.end_ns)) {
    if (received != nullptr) received->clear();
    return;
  }
  Key key{frame.napi, frame.name, frame.cpu, NapiPollContext(frame)};
  if (chain.cached_row == nullptr || !(chain.cached_key == key)) {
    chain.cached_key = key;
    chain.cached_row = &rows_[key];
  }
  Row& row = *chain.cached_row;
  chain.row = &row;
  row.budget = std::max(row.budget, frame.budget);
  ++row.polls;
  row.work += frame.work;
  if (key.context == SoftirqSite::kNapiKthread) row.kthread_pid = frame.pid;
  if (exhausted) ++row.exhausted;
  if (chain.length > row.max_chain) {
    row.max_chain = chain.length;
    row.max_chain_start_ns = chain.start_ns;
    row.max_chain_end_ns = interval.end_ns;
  }
  ++row.work_histogram[frame.work];
  if (frame.start_known) {
    row.poll_time.Add(interval.end_ns - frame.start_ns, frame.start_ns);
  }
  if (received != nullptr) {
    bool any_device = IsBacklog(frame.name);
    for (const Received& skb : *received) {
      if ((any_device || skb.dev == frame.name) && skb.ts_ns >= frame.start_ns) ++row.skbs;
    }
    received->clear();
  }
}

bool NapiPolls::IsBacklog(StringId dev) const {
  return context_ != nullptr && context_->strings.Get(dev) == kBacklogNapiDevice;
}

std::vector<NapiRow> NapiPolls::Rows(const TraceContext& context, bool skb_recorded) const {
  std::vector<NapiRow> rows;
  for (const auto& [key, row] : rows_) {
    NapiRow out;
    out.napi = key.napi;
    out.dev = std::string(context.strings.Get(key.dev));
    out.cpu = key.cpu;
    out.context = key.context;
    out.budget = row.budget;
    out.polls = row.polls;
    out.exhausted = row.exhausted;
    out.work = row.work;
    out.max_consecutive_exhausted = row.max_chain;
    out.longest_chain_start_ns = row.max_chain_start_ns;
    out.longest_chain_end_ns = row.max_chain_end_ns;
    out.dropped_chains = row.dropped_chains;
    out.kthread_pid = row.kthread_pid;
    out.work_per_poll = CountStatsOf(row.work_histogram);
    out.poll_time = row.poll_time.Stats();
    out.netif_receive_skb = skb_recorded ? row.skbs : -1;
    rows.push_back(std::move(out));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const NapiRow& a, const NapiRow& b) {
    return std::tie(a.dev, a.napi, a.cpu, a.context) < std::tie(b.dev, b.napi, b.cpu, b.context);
  });
  return rows;
}

}  // namespace napiscope::internal
