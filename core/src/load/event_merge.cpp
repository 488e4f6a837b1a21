#include "load/event_merge.h"

#include <algorithm>
#include <functional>
#include <queue>

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
    }
    return true;
  }

  // Timestamp of the event Advance moved `cpu` to.
  TimestampNs HeadTs(int cpu) const {
    const Cursor& cursor = cursors_[cpu];
    return cursor.chunk->events[cursor.index].ts_ns;
  }

  // Takes the next event of `cpu` (strings remapped); false for a skipped record.
  bool Take(int cpu, Event* event) {
    Cursor& cursor = cursors_[cpu];
    *event = cursor.chunk->events[cursor.index++];
    if (event->kind == kSkippedRecord) {
      ++totals_->skipped;
      return false;
    }
    if (event->kind == EventKind::kMissedEvents) {
      context_.missed.push_back(cursor.chunk->missed[cursor.missed++]);
      return true;
    }
    Remap(*cursor.chunk->strings, event);
    if (event->pid != last_pid_[cpu]) {
      last_pid_[cpu] = event->pid;
      if (pids_seen_.insert(event->pid).second) {
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

  ChunkSource& source_;
  tep_handle* tep_;
  TraceContext& context_;
  MergeTotals* totals_;
  std::vector<Cursor> cursors_;
  std::vector<int32_t> last_pid_;  // per CPU: the pid last checked against pids_seen_
  absl::flat_hash_set<int32_t> pids_seen_;
};

}  // namespace

absl::Status MergeChunks(ChunkSource& source, int cpus, tep_handle* tep,
                         const std::vector<CpuDataExtent>& extents, TraceContext& context,
                         EventSink& sink, const LoadOptions& options, MergeTotals* totals) {
  Merger merger(source, cpus, tep, context, totals);
  // Min-heap of (timestamp, cpu): one entry per CPU that still has events.
  using HeapEntry = std::pair<TimestampNs, int>;
  std::vector<HeapEntry> storage;
  storage.reserve(static_cast<size_t>(cpus));
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap(
      std::greater<>(), std::move(storage));
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (merger.Advance(cpu)) heap.emplace(merger.HeadTs(cpu), cpu);
  }
  sink.OnBegin(context);
  Event event;
  int64_t popped = 0;
  while (!heap.empty()) {
    int cpu = heap.top().second;
    heap.pop();
    if (merger.Take(cpu, &event)) sink.OnEvent(event);
    if (merger.Advance(cpu)) heap.emplace(merger.HeadTs(cpu), cpu);
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
