#include "load/chunk_decoder.h"

#include <algorithm>

#include "load/time_plausibility.h"

namespace napiscope::internal {

ChunkDecoder::ChunkDecoder(const TraceFormats& formats)
    : strings_(std::make_unique<DecoderStrings>()), decoder_(formats, &strings_->table) {
  Publish();
}

void ChunkDecoder::Publish() {
  size_t size = strings_->table.size();
  std::lock_guard<std::mutex> lock(strings_->mutex);
  for (size_t id = strings_->published.size(); id < size; ++id) {
    strings_->published.push_back(strings_->table.Get(static_cast<StringId>(id)));
  }
}

void ChunkDecoder::DecodeChunk(CpuStream& stream, uint16_t cpu, DecodedChunk* chunk) {
  // No reserve: a chunk's vector grows to what its CPU really holds, so thousands of CPUs
  // with a few events each cost a few events each (clear() keeps the capacity).
  chunk->events.clear();
  chunk->missed.clear();
  chunk->strings = strings_.get();
  chunk->records = 0;
  chunk->backwards = 0;
  chunk->impossible_time = 0;
  const size_t strings_before = strings_->table.size();
  RawRecord record;
  while (chunk->events.size() + 1 < kChunkEvents) {
    if (!stream.reader->Next(&record)) {
      stream.finished = true;
      break;
    }
    ++chunk->records;
    chunk->last_offset = record.offset;
    if (record.ts_ns > kMaxTimestampNs) {  // a corrupt page or time extend; keeps math in range
      ++chunk->impossible_time;
      continue;
    }
    TimestampNs ts = static_cast<TimestampNs>(record.ts_ns);
    if (ts < stream.last_ts_ns) ++chunk->backwards;
    if (record.missed_events != 0) {
      MissedEventsMark mark{cpu, ts, stream.last_ts_ns,
                            record.missed_events > 0 ? record.missed_events : -1};
      chunk->missed.push_back(mark);
      Event& missed = chunk->events.emplace_back();
      missed.ts_ns = ts;
      missed.cpu = cpu;
      missed.kind = EventKind::kMissedEvents;
      missed.pid = -1;
      missed.missed = {mark.count};
    }
    Event& event = chunk->events.emplace_back();
    event.ts_ns = ts;
    event.cpu = cpu;
    if (!decoder_.Decode(record.data, record.size, &event)) event.kind = kSkippedRecord;
    stream.last_ts_ns = std::max(stream.last_ts_ns, ts);
  }
  if (strings_->table.size() != strings_before) Publish();
}

void ChunkDecoder::MapKnownStrings(DecodedChunk* chunk) {
  DecoderStrings& strings = *strings_;
  std::vector<StringId>& known = strings.known_global_plus_one;
  {
    std::lock_guard<std::mutex> lock(strings.mutex);
    for (; strings.learned_taken < strings.learned.size(); ++strings.learned_taken) {
      auto [local, global] = strings.learned[strings.learned_taken];
      if (local >= known.size()) known.resize(local + 1, 0);
      known[local] = global + 1;
    }
  }
  auto is_known = [&](StringId local) {
    return local == 0 || (local < known.size() && known[local] != 0);
  };
  auto to_global = [&](StringId& id) {
    if (id != 0) id = known[id] - 1;
  };
  for (Event& event : chunk->events) {
    if (event.kind == kSkippedRecord || event.kind == EventKind::kMissedEvents) continue;
    bool all_known = is_known(event.name);
    ForEachPayloadString(event, [&](StringId id) { all_known = all_known && is_known(id); });
    if (!all_known) {
      event.name |= kLocalStringIds;
      continue;
    }
    to_global(event.name);
    ForEachPayloadString(event, to_global);
  }
}

}  // namespace napiscope::internal
