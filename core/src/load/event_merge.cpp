#include "load/event_merge.h"

#include <algorithm>
#include <functional>

#include <absl/container/flat_hash_set.h>
#include <traceevent/event-parse.h>

namespace napiscope::internal {
namespace {

constexpr int64_t kProgressEvery = 1 << 16;

// Where the merge stands in one CPU's chunks.
struct Cursor {
  const DecodedChunk* chunk = nullptr;
  size_t index = 0;   // next event of the chunk
  size_t missed = 0;  // next missed-events mark of the chunk
  uint64_t last_offset = 0;
  bool finished = false;
};

class Merger {
 public:
  Merger(ChunkSource& source, int cpus, tep_handle* tep, TraceContext& context,
         MergeTotals* totals)
      : source_(source), tep_(tep), context_(context), totals_(totals), cursors_(cpus),
        last_pid_(cpus, -1) {}

  // Moves the cursor of `cpu` to an event; false when the CPU has no more.
  bool Advance(int cpu) {
    Cursor& cursor = cursors_[cpu];
    while (cursor.chunk == nullptr || cursor.index >= cursor.chunk->events.size()) {
      cursor.chunk = source_.NextChunk(cpu);
      if (cursor.chunk == nullptr) {
        cursor.finished = true;
        return false;
      }
      cursor.index = 0;
      cursor.missed = 0;
      cursor.last_offset = cursor.chunk->last_offset;
      totals_->records += cursor.chunk->records;
      totals_->backwards += cursor.chunk->backwards;
      totals_->impossible_time += cursor.chunk->impossible_time;
    }
    return true;
  }

  // Timestamp of the event Advance moved `cpu` to.
  TimestampNs HeadTs(int cpu) const {
    const Cursor& cursor = cursors_[cpu];
    const Event* head = &cursor.chunk->events[cursor.index];
    // The chunk was written by another core: ask for the events after the head now, so they
    // are in cache when this CPU comes first again (about one in `cpus` events later).
    __builtin_prefetch(head + kPrefetchEvents);
    return head->ts_ns;
  }

  // Takes the next event of `cpu` (strings remapped); false for a skipped record. A record
  // earlier than the one before it (its CPU's time went backwards: corrupt data, counted by
  // the decoder) gets the time of the one before, so every sink sees time in order.
  bool Take(int cpu, Event* event) {
    Cursor& cursor = cursors_[cpu];
    *event = cursor.chunk->events[cursor.index++];
    if (event->kind == kSkippedRecord) {
      ++totals_->skipped;
      return false;
    }
    event->ts_ns = std::max(event->ts_ns, delivered_ns_);
    delivered_ns_ = event->ts_ns;
    if (event->kind == EventKind::kMissedEvents) {
      MissedEventsMark mark = cursor.chunk->missed[cursor.missed++];
      mark.ts_ns = event->ts_ns;
      context_.missed.push_back(mark);
      return true;
    }
    Remap(*cursor.chunk->strings, event);
    if (event->pid != last_pid_[cpu]) {
      last_pid_[cpu] = event->pid;
      if (FirstSight(event->pid)) {
        const char* comm = tep_data_comm_from_pid(tep_, event->pid);
        if (comm != nullptr && comm[0] != '<') {
          context_.tasks.SetInitialComm(event->pid, context_.strings.Intern(comm));
        }
      }
    }
    context_.tasks.ObserveEvent(*event);
    return true;
  }

  double FractionDone(const std::vector<CpuDataExtent>& extents) const {
    double done = 0;
    int counted = 0;
    for (const CpuDataExtent& extent : extents) {
      if (extent.size == 0 || extent.cpu < 0 || extent.cpu >= static_cast<int>(cursors_.size())) {
        continue;
      }
      ++counted;
      const Cursor& cursor = cursors_[extent.cpu];
      if (cursor.finished) {
        done += 1;
      } else if (cursor.last_offset >= extent.offset) {
        done += std::min(1.0, static_cast<double>(cursor.last_offset - extent.offset) /
                                  static_cast<double>(extent.size));
      }
    }
    return counted == 0 ? 0 : done / counted;
  }

 private:
  StringId Global(DecoderStrings& strings, StringId local) {
    if (local == 0) return 0;
    if (local >= strings.global_plus_one.size()) strings.global_plus_one.resize(local + 1, 0);
    StringId& slot = strings.global_plus_one[local];
    if (slot == 0) {
      std::string_view text;
      {
        std::lock_guard<std::mutex> lock(strings.mutex);
        text = strings.published[local];
      }
      slot = context_.strings.Intern(text) + 1;
    }
    return slot - 1;
  }

  void Remap(DecoderStrings& strings, Event* event) {
    event->name = Global(strings, event->name);
    switch (event->kind) {
      case EventKind::kSchedSwitch:
        event->sched_switch.prev_comm = Global(strings, event->sched_switch.prev_comm);
        event->sched_switch.next_comm = Global(strings, event->sched_switch.next_comm);
        break;
      case EventKind::kSchedWaking:
      case EventKind::kSchedWakeup:
      case EventKind::kSchedWakeupNew:
        event->wake.comm = Global(strings, event->wake.comm);
        break;
      case EventKind::kSchedMigrateTask:
        event->migrate.comm = Global(strings, event->migrate.comm);
        break;
      case EventKind::kSchedPiSetprio:
        event->pi.comm = Global(strings, event->pi.comm);
        break;
      case EventKind::kSchedProcessFork:
        event->fork.child_comm = Global(strings, event->fork.child_comm);
        break;
      case EventKind::kSchedProcessExit:
        event->exit.comm = Global(strings, event->exit.comm);
        break;
      case EventKind::kIrqHandlerEntry:
      case EventKind::kIrqHandlerExit:
      case EventKind::kIrqVectorEntry:
      case EventKind::kIrqVectorExit:
        event->irq.handler = Global(strings, event->irq.handler);
        break;
      case EventKind::kNapiPoll:
        event->napi.dev = Global(strings, event->napi.dev);
        break;
      case EventKind::kNetifReceiveSkb:
      case EventKind::kNetifRx:
      case EventKind::kNetDevXmit:
        event->net.dev = Global(strings, event->net.dev);
        break;
      default:
        break;
    }
  }

  static constexpr int kPrefetchEvents = 4;

  ChunkSource& source_;
  tep_handle* tep_;
  TraceContext& context_;
  MergeTotals* totals_;
  std::vector<Cursor> cursors_;
  TimestampNs delivered_ns_ = 0;  // time of the last event taken
  // True the first time `pid` is seen.
  bool FirstSight(int32_t pid) {
    if (pid >= 0 && pid < kDensePids) {
      if (static_cast<size_t>(pid) >= dense_seen_.size()) dense_seen_.resize(pid + 1024, false);
      if (dense_seen_[pid]) return false;
      dense_seen_[pid] = true;
      return true;
    }
    return sparse_seen_.insert(pid).second;
  }

  static constexpr int32_t kDensePids = 1 << 22;  // the kernel's largest pid_max
  std::vector<int32_t> last_pid_;  // per CPU: the pid last checked by FirstSight
  std::vector<bool> dense_seen_;
  absl::flat_hash_set<int32_t> sparse_seen_;
};

using HeapEntry = std::pair<TimestampNs, int>;

// Restores the min-heap order after the top entry changed.
void SiftDown(std::vector<HeapEntry>& heap) {
  size_t size = heap.size();
  if (size < 2) return;
  size_t at = 0;
  HeapEntry moving = heap[0];
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && heap[child + 1] < heap[child]) ++child;
    if (!(heap[child] < moving)) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = moving;
}

}  // namespace

absl::Status MergeChunks(ChunkSource& source, int cpus, tep_handle* tep,
                         const std::vector<CpuDataExtent>& extents, TraceContext& context,
                         EventSink& sink, const LoadOptions& options, MergeTotals* totals) {
  Merger merger(source, cpus, tep, context, totals);
  // Min-heap of (timestamp, cpu), one entry per CPU that still has events; the top is
  // replaced in place, so a CPU whose next event still comes first costs two comparisons.
  std::vector<HeapEntry> heap;
  heap.reserve(static_cast<size_t>(cpus));
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (merger.Advance(cpu)) heap.push_back({merger.HeadTs(cpu), cpu});
  }
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  sink.OnBegin(context);
  Event event;
  int64_t popped = 0;
  while (!heap.empty()) {
    int cpu = heap.front().second;
    if (merger.Take(cpu, &event)) sink.OnEvent(event);
    if (merger.Advance(cpu)) {
      heap.front().first = merger.HeadTs(cpu);
    } else {
      heap.front() = heap.back();
      heap.pop_back();
    }
    SiftDown(heap);
    if (++popped % kProgressEvery == 0) {
      if (options.cancel != nullptr && options.cancel->load()) {
        return absl::CancelledError("load cancelled");
      }
      if (options.progress) options.progress(merger.FractionDone(extents));
    }
  }
  return source.status();
}

}  // namespace napiscope::internal
