#include "load/event_merge.h"

#include <algorithm>

#include "load/event_ingest.h"

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
  Merger(ChunkSource& source, int cpus, TraceContext& context, EventIngest& ingest,
         MergeTotals* totals)
      : source_(source), context_(context), ingest_(ingest), totals_(totals), cursors_(cpus) {}

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

  // Hands the next event of `cpu` (strings remapped) to the ingest; skipped records are
  // counted. The ingest gives a record earlier than the one before it (its CPU's time went
  // backwards: corrupt data, counted by the decoder) the time of the one before.
  void Take(int cpu) {
    Cursor& cursor = cursors_[cpu];
    Event event = cursor.chunk->events[cursor.index++];
    if (event.kind == kSkippedRecord) {
      ++totals_->skipped;
      return;
    }
    if (event.kind == EventKind::kMissedEvents) {
      ingest_.DeliverMissed(event, cursor.chunk->missed[cursor.missed++].last_before_ns);
      return;
    }
    Remap(*cursor.chunk->strings, &event);
    ingest_.Deliver(event);
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
  TraceContext& context_;
  EventIngest& ingest_;
  MergeTotals* totals_;
  std::vector<Cursor> cursors_;
};

}  // namespace
absl::Status MergeChunks(ChunkSource& source, int cpus, tep_handle* tep,
                         const std::vector<CpuDataExtent>& extents, TraceContext& context,
                         EventSink& sink, const LoadOptions& options, MergeTotals* totals) {
  EventIngest ingest(context, sink, tep);
  Merger merger(source, cpus, context, ingest, totals);
  StreamHeap heap;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (merger.Advance(cpu)) heap.Push(merger.HeadTs(cpu), cpu);
  }
  heap.Build();
  ingest.Begin();
  int64_t popped = 0;
  while (!heap.empty()) {
    int cpu = heap.top_stream();
    merger.Take(cpu);
    if (merger.Advance(cpu)) {
      heap.ReplaceTop(merger.HeadTs(cpu));
    } else {
      heap.PopTop();
    }
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
