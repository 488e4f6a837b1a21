#include "napiscope/timeline_stats.h"

#include <algorithm>

#include <absl/container/flat_hash_map.h>

namespace napiscope {
namespace {

// CPUs a per-CPU statistic covers: one, or all when cpu < 0.
std::vector<int> CpusOf(const Timeline& timeline, int cpu) {
  if (cpu >= 0) return cpu < timeline.cpus() ? std::vector<int>{cpu} : std::vector<int>{};
  std::vector<int> cpus(static_cast<size_t>(timeline.cpus()));
  for (int c = 0; c < timeline.cpus(); ++c) cpus[static_cast<size_t>(c)] = c;
  return cpus;
}

// Calls `visit(interval)` for every interval of a lane starting in [from_ns, to_ns).
template <typename Visit>
void ForEachStartingIn(const TimelineLane& lane, TimestampNs from_ns, TimestampNs to_ns,
                       Visit visit) {
  size_t end = lane.LowerBound(to_ns);
  for (size_t i = lane.LowerBound(from_ns); i < end; ++i) visit(lane.At(i));
}

// Exclusive-time sweep: what owns each instant. Frames nest, so the one that began last is the
// innermost and owns the time (as the ContextTracker's top frame); a resumed softirq begins
// with its task, so on a tie the higher rank wins. Gaps own everything they cover.
struct Piece {
  TimestampNs start_ns;
  TimestampNs end_ns;
  int rank;      // 3 gap, 2 hard IRQ, 1 softirq, 0 task
  int category;  // vector for softirqs, TaskClass for tasks
};

}  // namespace

std::array<LogHistogram, kSoftirqVectorCount> SoftirqWaitHistograms(const Timeline& timeline,
                                                                    int cpu, TimestampNs from_ns,
                                                                    TimestampNs to_ns) {
  std::array<LogHistogram, kSoftirqVectorCount> histograms;
  for (int c : CpusOf(timeline, cpu)) {
    ForEachStartingIn(timeline.lane(c, Lane::kSoftirqWait), from_ns, to_ns,
                      [&](const TimelineInterval& wait) {
                        uint32_t vec = timeline.items()[wait.item].vec;
                        if (vec < kSoftirqVectorCount) histograms[vec].Add(wait.duration_ns());
                      });
  }
  return histograms;
}

CpuTimeBreakdown BreakDownCpuTime(const Timeline& timeline, int cpu, TimestampNs from_ns,
                                  TimestampNs to_ns) {
  CpuTimeBreakdown breakdown;
  breakdown.cpu = cpu;
  if (cpu < 0 || cpu >= timeline.cpus() || to_ns <= from_ns) return breakdown;
  breakdown.span_ns = to_ns - from_ns;
  std::vector<Piece> pieces;
  auto add = [&](TimestampNs start, TimestampNs end, int rank, int category) {
    start = std::max(start, from_ns);
    end = std::min(end, to_ns);
    if (end > start) pieces.push_back({start, end, rank, category});
  };
  for (const TimelineGap& gap : timeline.gaps(cpu)) add(gap.start_ns, gap.end_ns, 3, 0);
  const std::vector<TimelineItem>& items = timeline.items();
  for (const TimelineInterval& i : timeline.Overlapping(cpu, Lane::kHardirq, from_ns, to_ns)) {
    add(i.start_ns, i.end_ns, 2, 0);
  }
  for (const TimelineInterval& i : timeline.Overlapping(cpu, Lane::kSoftirq, from_ns, to_ns)) {
    add(i.start_ns, i.end_ns, 1, static_cast<int>(items[i.item].vec));
  }
  for (const TimelineInterval& i : timeline.Overlapping(cpu, Lane::kTask, from_ns, to_ns)) {
    add(i.start_ns, i.end_ns, 0, static_cast<int>(items[i.item].task_class));
  }
  // Sweep the starts and ends in time order, keeping the few pieces active at once.
  struct Edge {
    TimestampNs ts_ns;
    bool start;
    size_t piece;
  };
  std::vector<Edge> edges;
  edges.reserve(pieces.size() * 2);
  for (size_t p = 0; p < pieces.size(); ++p) {
    edges.push_back({pieces[p].start_ns, true, p});
    edges.push_back({pieces[p].end_ns, false, p});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.start < b.start;  // ends first
  });
  std::vector<size_t> active;
  TimestampNs cursor = from_ns;
  int64_t accounted = 0;
  for (const Edge& edge : edges) {
    if (edge.ts_ns > cursor && !active.empty()) {
      const Piece& top =
          pieces[*std::max_element(active.begin(), active.end(), [&](size_t a, size_t b) {
            const Piece& pa = pieces[a];
            const Piece& pb = pieces[b];
            if ((pa.rank == 3) != (pb.rank == 3)) return pb.rank == 3;
            return pa.start_ns != pb.start_ns ? pa.start_ns < pb.start_ns : pa.rank < pb.rank;
          })];
      int64_t length = edge.ts_ns - cursor;
      accounted += length;
      switch (top.rank) {
        case 3:
          breakdown.unknown_ns += length;
          break;
        case 2:
          breakdown.hardirq_ns += length;
          break;
        case 1:
          if (top.category < kSoftirqVectorCount) breakdown.softirq_ns[top.category] += length;
          break;
        default:
          breakdown.task_ns[top.category] += length;
          break;
      }
    }
    cursor = std::max(cursor, edge.ts_ns);
    if (edge.start) {
      active.push_back(edge.piece);
    } else {
      active.erase(std::find(active.begin(), active.end(), edge.piece));
    }
  }
  breakdown.idle_ns = breakdown.span_ns - accounted;
  return breakdown;
}

std::vector<ThreadActivations> CountActivations(const Timeline& timeline, TimestampNs from_ns,
                                                TimestampNs to_ns) {
  const std::vector<Activation>& all = timeline.activations();
  auto by_from = [](const Activation& a, TimestampNs ts) { return a.from_ns < ts; };
  auto begin = std::lower_bound(all.begin(), all.end(), from_ns, by_from);
  auto end = std::lower_bound(begin, all.end(), to_ns, by_from);
  std::vector<ThreadActivations> threads;
  absl::flat_hash_map<int32_t, size_t> index_of_pid;
  for (auto it = begin; it != end; ++it) {
    auto [slot, inserted] = index_of_pid.try_emplace(it->pid, threads.size());
    if (inserted) threads.push_back({it->kind, it->pid, it->comm, 0, 0});
    ThreadActivations& thread = threads[slot->second];
    (it->cross_cpu() ? thread.cross_cpu : thread.same_cpu) += 1;
  }
  std::stable_sort(threads.begin(), threads.end(),
                   [](const ThreadActivations& a, const ThreadActivations& b) {
                     return a.cross_cpu > b.cross_cpu;
                   });
  return threads;
}

NapiWorkHistogram CountNapiWork(const Timeline& timeline, int cpu, TimestampNs from_ns,
                                TimestampNs to_ns) {
  NapiWorkHistogram histogram;
  for (int c : CpusOf(timeline, cpu)) {
    ForEachStartingIn(timeline.lane(c, Lane::kNapiPoll), from_ns, to_ns,
                      [&](const TimelineInterval& poll) {
                        const TimelineItem& item = timeline.items()[poll.item];
                        int32_t work = std::max(item.work, 0);
                        if (histogram.polls_by_work.size() <= static_cast<size_t>(work)) {
                          histogram.polls_by_work.resize(work + 1, 0);
                        }
                        ++histogram.polls_by_work[work];
                        ++histogram.polls;
                        histogram.exhausted += (item.flags & kItemExhausted) ? 1 : 0;
                        histogram.budget = std::max(histogram.budget, item.budget);
                      });
  }
  return histogram;
}

}  // namespace napiscope
