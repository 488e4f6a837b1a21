#include "load/chunk_source.h"

#include <algorithm>
#include <limits>
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

bool CpuChunkReader::DecodeNext(int stream, DecodedChunk* chunk) {
  int cpu = cpus_[stream];
  CpuStream& cpu_stream = cpu_streams_[cpu];
  if (cpu_stream.finished || cpu_stream.reader == nullptr) {
    positions_.MarkFinished(cpu);
    chunk->events.clear();
    chunk->missed.clear();
    chunk->records = chunk->backwards = chunk->impossible_time = 0;
    return false;
  }
  decoder_.DecodeChunk(cpu_stream, static_cast<uint16_t>(cpu), chunk);
  positions_.Record(cpu, chunk->last_offset);
  if (observer_ != nullptr && !chunk->events.empty()) {
    observer_->OnDecoded(static_cast<uint16_t>(cpu), chunk->events, chunk->strings->table);
  }
  decoder_.MapKnownStrings(chunk);
  return true;
}

bool CpuChunkReader::Finished(int stream) const {
  const CpuStream& cpu_stream = cpu_streams_[cpus_[stream]];
  return cpu_stream.finished || cpu_stream.reader == nullptr;
}

const DecodedChunk* CpuChunkReader::NextChunk(int stream) {
  DecodedChunk& chunk = chunks_[stream];
  return DecodeNext(stream, &chunk) ? &chunk : nullptr;
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

namespace {

// A worker's merged stream: deep enough to absorb the bursts of the sink's work (the 20M-event
// trace's report took 2.22 s with 4 slots, 1.92 s with 16 or 32).
constexpr int kMergedSlots = 16;
constexpr size_t kMergedChunkEvents = 2048;
// A CPU handed over alone: small chunks, still in cache when the merging thread reads them.
constexpr int kCpuSlots = 4;

}  // namespace

ThreadedChunkSource::Output::Output(ChunkDecoder& decoder, std::vector<CpuStream>& streams,
                                    std::vector<int> cpus, ReadPositions& positions,
                                    DecodedRecordsObserver* observer, int all_cpus)
    : reader(decoder, streams, std::move(cpus), positions, observer),
      slots(static_cast<size_t>(reader.streams() > 1 ? kMergedSlots : kCpuSlots)) {
  if (reader.streams() > 1) merge.emplace(reader, all_cpus);
}

ThreadedChunkSource::ThreadedChunkSource(const TraceFormats& formats,
                                         std::vector<CpuStream> streams,
                                         const std::vector<uint64_t>& bytes, int workers,
                                         bool merge_per_worker, DecodedRecordsObserver* observer)
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
    Worker& worker = *workers_.emplace_back(std::make_unique<Worker>(formats));
    std::vector<std::vector<int>> groups;
    if (merge_per_worker) {
      groups.push_back(std::move(cpus_of_worker));
    } else {
      for (int cpu : cpus_of_worker) groups.push_back({cpu});
    }
    for (std::vector<int>& group : groups) {
      outputs_.push_back(std::make_unique<Output>(worker.decoder, streams_, std::move(group),
                                                  positions_, observer, cpus));
      worker.outputs.push_back(outputs_.back().get());
    }
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

bool ThreadedChunkSource::Fill(Output& output, ChunkDecoder& decoder, DecodedChunk* chunk) {
  if (!output.merge) {  // a CPU alone: decoded straight into the slot
    return output.reader.DecodeNext(0, chunk) && !output.reader.Finished(0);
  }
  ChunkMerge& merge = *output.merge;
  chunk->events.clear();
  chunk->missed.clear();
  chunk->strings = &decoder.strings();
  ReadTotals before = merge.totals();
  bool more = true;
  while (chunk->events.size() < kMergedChunkEvents) {
    if (!merge.Next()) {
      more = false;
      break;
    }
    const Event& event = merge.event();
    chunk->events.push_back(event);
    if (event.kind == EventKind::kMissedEvents) chunk->missed.push_back(merge.missed_mark());
  }
  const ReadTotals& after = merge.totals();
  chunk->records = after.records - before.records;
  chunk->backwards = after.backwards - before.backwards;
  chunk->impossible_time = after.impossible_time - before.impossible_time;
  return more;
}

void ThreadedChunkSource::Run(Worker& worker) {
  for (;;) {
    Output* output = nullptr;
    DecodedChunk* slot = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        if (stop_) return;
        bool any_left = false;
        int64_t fewest_ready = std::numeric_limits<int64_t>::max();
        for (Output* candidate : worker.outputs) {
          if (candidate->done) continue;
          any_left = true;
          int64_t ready = candidate->produced - candidate->released;
          if (ready < static_cast<int64_t>(candidate->slots.size()) && ready < fewest_ready) {
            fewest_ready = ready;
            output = candidate;
          }
        }
        if (!any_left) return;
        if (output != nullptr) break;
        // Every stream is full: sleep until the merging thread has taken half of one, not
        // wake on every chunk it takes (a wake-up costs about as much as merging a chunk).
        slot_free_.wait(lock, [&] { return stop_ || HalfTaken(worker); });
      }
      slot = &output->slots[static_cast<size_t>(output->produced) % output->slots.size()];
    }
    // The slot is not visible to the merging thread until `produced` moves past it.
    bool more = Fill(*output, worker.decoder, slot);
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++output->produced;
      output->done = !more;
      wake = output->done || output->produced - output->released == output->half();
    }
    if (wake) chunk_ready_.notify_all();
  }
}

bool ThreadedChunkSource::HalfTaken(const Worker& worker) {
  for (const Output* output : worker.outputs) {
    if (!output->done && output->produced - output->released <= output->half()) return true;
  }
  return false;
}

const DecodedChunk* ThreadedChunkSource::NextChunk(int stream) {
  Output& output = *outputs_[stream];
  std::unique_lock<std::mutex> lock(mutex_);
  if (output.holding) {
    ++output.released;
    output.holding = false;
    if (output.produced - output.released == output.half()) slot_free_.notify_all();
  }
  // An empty stream: sleep until its worker has filled half of it (or ended it), not wake on
  // every chunk. Its worker is not asleep: it sleeps only while all its streams are full.
  if (output.produced == output.released) {
    chunk_ready_.wait(lock, [&] {
      return output.produced - output.released >= output.half() || output.done || stop_;
    });
  }
  if (output.produced == output.released) return nullptr;
  output.holding = true;
  return &output.slots[static_cast<size_t>(output.released) % output.slots.size()];
}

}  // namespace napiscope::internal
