#include "load/event_merge.h"

#include <mutex>

#include "load/event_ingest.h"

namespace napiscope::internal {
namespace {

constexpr int64_t kProgressEvery = 1 << 16;

// Turns the string ids of decoded events into ids of the trace's string table.
class StringRemap {
 public:
  explicit StringRemap(TraceContext& context) : context_(context) {}

  // The trace's id of `local`, a string of `strings`.
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

 private:
  TraceContext& context_;
};

}  // namespace
absl::Status MergeChunks(CpuDataSource& source, int cpus, tep_handle* tep,
                         const std::vector<CpuDataExtent>& extents, TraceContext& context,
                         EventSink& sink, const LoadOptions& options, MergeTotals* totals) {
  EventIngest ingest(context, sink, tep);
  StringRemap strings(context);
  ChunkMerge merge(source, cpus);
  // The first chunk of every CPU is decoded before the sink begins.
  bool more = merge.Next();
  ingest.Begin();
  int64_t taken = 0;
  for (; more; more = merge.Next()) {
    Event event = merge.event();
    if (event.kind == kSkippedRecord) {
      ++totals->skipped;
    } else if (event.kind == EventKind::kMissedEvents) {
      ingest.DeliverMissed(event, merge.missed_mark().last_before_ns);
    } else {
      strings.Remap(merge.strings(), &event);
      ingest.Deliver(event);
    }
    if (++taken % kProgressEvery == 0) {
      if (options.cancel != nullptr && options.cancel->load()) {
        return absl::CancelledError("load cancelled");
      }
      if (options.progress) options.progress(source.FractionDone(extents));
    }
  }
  static_cast<ReadTotals&>(*totals) = merge.totals();
  return source.status();
}

}  // namespace napiscope::internal
