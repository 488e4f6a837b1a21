#include "load/chunk_merge.h"

namespace napiscope::internal {

ChunkMerge::ChunkMerge(ChunkSource& source, int cpus)
    : source_(source), cursors_(static_cast<size_t>(source.streams())), stream_of_cpu_(cpus, -1) {}

bool ChunkMerge::Advance(int stream) {
  Cursor& cursor = cursors_[stream];
  while (cursor.chunk == nullptr || cursor.index >= cursor.chunk->events.size()) {
    cursor.chunk = source_.NextChunk(stream);
    if (cursor.chunk == nullptr) return false;
    cursor.index = 0;
    cursor.missed = 0;
    totals_.records += cursor.chunk->records;
    totals_.backwards += cursor.chunk->backwards;
    totals_.impossible_time += cursor.chunk->impossible_time;
  }
  return true;
}

void ChunkMerge::PushHead(int stream) {
  const Event& head = cursors_[stream].chunk->events[cursors_[stream].index];
  stream_of_cpu_[head.cpu] = stream;
  heads_.Push(head.ts_ns, head.cpu);
}

void ChunkMerge::ReplaceTopWithHead(int stream) {
  const Event* head = &cursors_[stream].chunk->events[cursors_[stream].index];
  // The chunk was written by another core: ask for the events after the head now, so they
  // are in cache when this stream comes first again.
  __builtin_prefetch(head + kPrefetchEvents);
  stream_of_cpu_[head->cpu] = stream;
  heads_.ReplaceTop(head->ts_ns, head->cpu);
}

bool ChunkMerge::NextFromTournament() {
  if (done_) return false;
  if (current_ < 0) {
    for (int stream = 0; stream < static_cast<int>(cursors_.size()); ++stream) {
      if (Advance(stream)) PushHead(stream);
    }
    heads_.Build();
  } else {
    Cursor& cursor = cursors_[current_];
    if (cursor.chunk->events[cursor.index].kind == EventKind::kMissedEvents) ++cursor.missed;
    ++cursor.index;
    if (Advance(current_)) {
      ReplaceTopWithHead(current_);
    } else {
      heads_.PopTop();
    }
  }
  if (heads_.empty()) {
    done_ = true;
    return false;
  }
  current_ = stream_of_cpu_[heads_.top_stream()];
  return true;
}

}  // namespace napiscope::internal
