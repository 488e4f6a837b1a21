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
      std::lock_guard<std::mutex> lock(strings.mutex);
      slot = context_.strings.Intern(strings.published[local]) + 1;
      strings.learned.emplace_back(local, slot - 1);  // for the decoder's later chunks
    }
    return slot - 1;
  }

  // Maps an event the decoder marked kLocalStringIds.
  void Remap(DecoderStrings& strings, Event* event) {
    event->name = Global(strings, event->name & ~kLocalStringIds);
    ForEachPayloadString(*event, [&](StringId& id) { id = Global(strings, id); });
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
      if ((event.name & kLocalStringIds) != 0) strings.Remap(merge.strings(), &event);
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
