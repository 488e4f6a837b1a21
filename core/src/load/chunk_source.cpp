#include "load/chunk_source.h"

#include <algorithm>
#include <numeric>

namespace napiscope::internal {

ReadPositions::ReadPositions(int cpus)
    : cpus_(cpus),
      last_offset_(std::make_unique<std::atomic<uint64_t>[]>(static_cast<size_t>(cpus))),
      finished_(std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(cpus))) {
  for (int cpu = 0; cpu < cpus; ++cpu) {
    last_offset_[cpu].store(0, std::memory_order_relaxed);
    finished_[cpu].store(false, std::memory_order_relaxed);
  }
}

void ReadPositions::Record(int cpu, uint64_t last_offset) {
  last_offset_[cpu].store(last_offset, std::memory_order_relaxed);
}

void ReadPositions::MarkFinished(int cpu) { finished_[cpu].store(true, std::memory_order_relaxed); }

double ReadPositions::FractionDone(const std::vector<CpuDataExtent>& extents) const {
  double done = 0;
  int counted = 0;
  for (const CpuDataExtent& extent : extents) {
    if (extent.size == 0 || extent.cpu < 0 || extent.cpu >= cpus_) continue;
    ++counted;
    uint64_t offset = last_offset_[extent.cpu].load(std::memory_order_relaxed);
    if (finished_[extent.cpu].load(std::memory_order_relaxed)) {
      done += 1;
    } else if (offset >= extent.offset) {
      done += std::min(
          1.0, static_cast<double>(offset - extent.offset) / static_cast<double>(extent.size));
    }
  }
  return counted == 0 ? 0 : done / counted;
}

CpuChunkReader::CpuChunkReader(ChunkDecoder& decoder, std::vector<CpuStream>& streams,
                               std::vector<int> cpus, ReadPositions& positions,
                               DecodedRecordsObserver* observer)
    : decoder_(decoder),
      cpu_streams_(streams),
      cpus_(std::move(cpus)),
      positions_(positions),
      observer_(observer),
      chunks_(cpus_.size()) {}

const DecodedChunk* CpuChunkReader::NextChunk(int stream) {
  int cpu = cpus_[stream];
  CpuStream& cpu_stream = cpu_streams_[cpu];
  if (cpu_stream.finished || cpu_stream.reader == nullptr) {
    positions_.MarkFinished(cpu);
    return nullptr;
  }
  DecodedChunk& chunk = chunks_[stream];
  decoder_.DecodeChunk(cpu_stream, static_cast<uint16_t>(cpu), &chunk);
  positions_.Record(cpu, chunk.last_offset);
  if (observer_ != nullptr && !chunk.events.empty()) {
    observer_->OnDecoded(static_cast<uint16_t>(cpu), chunk.events, chunk.strings->table);
  }
  return &chunk;
}

absl::Status CpuDataSource::FirstError(const std::vector<CpuStream>& streams) {
  for (const CpuStream& stream : streams) {
    if (stream.reader == nullptr) continue;
    absl::Status status = stream.reader->status();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

namespace {

std::vector<int> AllCpus(size_t cpus) {
  std::vector<int> all(cpus);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

}  // namespace

InlineChunkSource::InlineChunkSource(const TraceFormats& formats, std::vector<CpuStream> streams,
                                     DecodedRecordsObserver* observer)
    : decoder_(formats),
      streams_(std::move(streams)),
      positions_(static_cast<int>(streams_.size())),
      reader_(decoder_, streams_, AllCpus(streams_.size()), positions_, observer) {}

ThreadedChunkSource::Worker::Worker(const TraceFormats& formats, std::vector<CpuStream>& streams,
                                    std::vector<int> cpus, ReadPositions& positions,
                                    DecodedRecordsObserver* observer, int all_cpus)
    : decoder(formats),
      reader(decoder, streams, std::move(cpus), positions, observer),
      merge(reader, all_cpus) {}

ThreadedChunkSource::ThreadedChunkSource(const TraceFormats& formats,
                                         std::vector<CpuStream> streams,
                                         const std::vector<uint64_t>& bytes, int workers,
                                         DecodedRecordsObserver* observer)
    : streams_(std::move(streams)), positions_(static_cast<int>(streams_.size())) {
  // Largest CPUs first, each to the worker with the fewest bytes so far.
  std::vector<int> order = AllCpus(streams_.size());
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bytes[a] > bytes[b]; });
  workers = std::max(1, workers);
  std::vector<uint64_t> load(static_cast<size_t>(workers), 0);
  std::vector<std::vector<int>> owned(static_cast<size_t>(workers));
  for (int cpu : order) {
    const CpuStream& stream = streams_[cpu];
    if (stream.reader == nullptr || stream.finished) {
      positions_.MarkFinished(cpu);
      continue;
    }
    size_t least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += bytes[cpu];
    owned[least].push_back(cpu);
  }
  // Decoders read the tep handle's formats; build them all before any thread starts.
  int cpus = static_cast<int>(streams_.size());
  for (std::vector<int>& cpus_of_worker : owned) {
    if (cpus_of_worker.empty()) continue;
    workers_.push_back(std::make_unique<Worker>(formats, streams_, std::move(cpus_of_worker),
                                                positions_, observer, cpus));
  }
  for (std::unique_ptr<Worker>& worker : workers_) {
    Worker* started = worker.get();
    worker->thread = std::thread([this, started] { Run(*started); });
  }
}

ThreadedChunkSource::~ThreadedChunkSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  slot_free_.notify_all();
  chunk_ready_.notify_all();
  for (std::unique_ptr<Worker>& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

bool ThreadedChunkSource::Fill(Worker& worker, DecodedChunk* chunk) {
  chunk->events.clear();
  chunk->missed.clear();
  chunk->strings = &worker.decoder.strings();
  ReadTotals before = worker.merge.totals();
  bool more = true;
  while (chunk->events.size() < kMergedChunkEvents) {
    if (!worker.merge.Next()) {
      more = false;
      break;
    }
    const Event& event = worker.merge.event();
    chunk->events.push_back(event);
    if (event.kind == EventKind::kMissedEvents) chunk->missed.push_back(worker.merge.missed_mark());
  }
  const ReadTotals& after = worker.merge.totals();
  chunk->records = after.records - before.records;
  chunk->backwards = after.backwards - before.backwards;
  chunk->impossible_time = after.impossible_time - before.impossible_time;
  return more;
}

void ThreadedChunkSource::Run(Worker& worker) {
  for (;;) {
    int64_t slot = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      slot_free_.wait(lock, [&] { return stop_ || worker.produced - worker.released < kSlots; });
      if (stop_) return;
      slot = worker.produced % kSlots;
    }
    // The slot is not visible to the merging thread until `produced` moves past it.
    bool more = Fill(worker, &worker.slots[slot]);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++worker.produced;
      worker.done = !more;
    }
    chunk_ready_.notify_one();
    if (!more) return;
  }
}

const DecodedChunk* ThreadedChunkSource::NextChunk(int stream) {
  Worker& worker = *workers_[stream];
  std::unique_lock<std::mutex> lock(mutex_);
  if (worker.holding) {
    ++worker.released;
    worker.holding = false;
    slot_free_.notify_all();
  }
  chunk_ready_.wait(lock,
                    [&] { return worker.produced > worker.released || worker.done || stop_; });
  if (worker.produced == worker.released) return nullptr;
  worker.holding = true;
  return &worker.slots[worker.released % kSlots];
}

}  // namespace napiscope::internal
