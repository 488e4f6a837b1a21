#include "load/chunk_source.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace napiscope::internal {
namespace {

// Shows a decoded chunk to the observer, if any, on the thread that decoded it.
void Observe(DecodedRecordsObserver* observer, uint16_t cpu, const DecodedChunk& chunk) {
  if (observer != nullptr && !chunk.events.empty()) {
    observer->OnDecoded(cpu, chunk.events, chunk.strings->table);
  }
}

absl::Status FirstError(const std::vector<const CpuStream*>& streams) {
  for (const CpuStream* stream : streams) {
    if (stream->reader == nullptr) continue;
    absl::Status status = stream->reader->status();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

InlineChunkSource::InlineChunkSource(const TraceFormats& formats,
                                     std::vector<CpuStream> streams,
                                     DecodedRecordsObserver* observer)
    : decoder_(formats),
      observer_(observer),
      streams_(std::move(streams)),
      chunks_(streams_.size()) {}

const DecodedChunk* InlineChunkSource::NextChunk(int cpu) {
  CpuStream& stream = streams_[cpu];
  if (stream.finished || stream.reader == nullptr) return nullptr;
  decoder_.DecodeChunk(stream, static_cast<uint16_t>(cpu), &chunks_[cpu]);
  Observe(observer_, static_cast<uint16_t>(cpu), chunks_[cpu]);
  return &chunks_[cpu];
}

absl::Status InlineChunkSource::status() const {
  std::vector<const CpuStream*> streams;
  for (const CpuStream& stream : streams_) streams.push_back(&stream);
  return FirstError(streams);
}

ThreadedChunkSource::ThreadedChunkSource(const TraceFormats& formats,
                                         std::vector<CpuStream> streams,
                                         const std::vector<uint64_t>& bytes, int workers,
                                         DecodedRecordsObserver* observer)
    : observer_(observer), rings_(streams.size()) {
  for (size_t cpu = 0; cpu < streams.size(); ++cpu) {
    rings_[cpu].stream = std::move(streams[cpu]);
    rings_[cpu].done = rings_[cpu].stream.reader == nullptr || rings_[cpu].stream.finished;
  }
  // Largest CPUs first, each to the worker with the fewest bytes so far.
  std::vector<int> order(rings_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bytes[a] > bytes[b]; });
  workers = std::max(1, workers);
  std::vector<uint64_t> load(static_cast<size_t>(workers), 0);
  workers_.resize(static_cast<size_t>(workers));
  for (int cpu : order) {
    if (rings_[cpu].done) continue;
    size_t least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += bytes[cpu];
    workers_[least].cpus.push_back(cpu);
  }
  // Decoders read the tep handle's formats; build them all before any thread starts.
  for (Worker& worker : workers_) {
    if (!worker.cpus.empty()) worker.decoder = std::make_unique<ChunkDecoder>(formats);
  }
  for (Worker& worker : workers_) {
    if (worker.decoder) worker.thread = std::thread([this, &worker] { Run(worker); });
  }
}

ThreadedChunkSource::~ThreadedChunkSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  slot_free_.notify_all();
  chunk_ready_.notify_all();
  for (Worker& worker : workers_) {
    if (worker.thread.joinable()) worker.thread.join();
  }
}

void ThreadedChunkSource::Run(Worker& worker) {
  for (;;) {
    int cpu = -1;
    int64_t slot = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        if (stop_) return;
        bool any_left = false;
        int64_t fewest_ready = std::numeric_limits<int64_t>::max();
        for (int candidate : worker.cpus) {
          const CpuRing& ring = rings_[candidate];
          if (ring.done) continue;
          any_left = true;
          int64_t ready = ring.produced - ring.released;
          if (ready < kSlots && ready < fewest_ready) {
            fewest_ready = ready;
            cpu = candidate;
          }
        }
        if (!any_left) return;
        if (cpu >= 0) break;
        slot_free_.wait(lock);
      }
      slot = rings_[cpu].produced % kSlots;
    }
    // The slot is not visible to the merge until `produced` moves past it.
    CpuRing& ring = rings_[cpu];
    worker.decoder->DecodeChunk(ring.stream, static_cast<uint16_t>(cpu), &ring.slots[slot]);
    Observe(observer_, static_cast<uint16_t>(cpu), ring.slots[slot]);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++ring.produced;
      ring.done = ring.stream.finished;
    }
    chunk_ready_.notify_one();
  }
}

const DecodedChunk* ThreadedChunkSource::NextChunk(int cpu) {
  CpuRing& ring = rings_[cpu];
  std::unique_lock<std::mutex> lock(mutex_);
  if (ring.holding) {
    ++ring.released;
    ring.holding = false;
    slot_free_.notify_all();
  }
  chunk_ready_.wait(lock, [&] { return ring.produced > ring.released || ring.done || stop_; });
  if (ring.produced == ring.released) return nullptr;
  ring.holding = true;
  return &ring.slots[ring.released % kSlots];
}

absl::Status ThreadedChunkSource::status() const {
  std::vector<const CpuStream*> streams;
  for (const CpuRing& ring : rings_) streams.push_back(&ring.stream);
  return FirstError(streams);
}

}  // namespace napiscope::internal
