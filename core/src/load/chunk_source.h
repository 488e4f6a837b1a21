// Where the loader's merge gets the decoded events of every CPU from: decoded on demand on
// the merging thread, one stream per CPU; or by worker threads that each decode and merge the
// CPUs they own into one stream, so the merging thread only merges the workers' streams.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <absl/status/status.h>

#include "load/chunk_decoder.h"
#include "load/chunk_merge.h"
#include "load/tracedat_header.h"
#include "napiscope/loader.h"

namespace napiscope::internal {

/// How far the reading of each CPU has come, for progress: written by the thread that
/// decodes the CPU, read by the merging thread.
class ReadPositions {
 public:
  /// Positions of `cpus` CPUs, none read yet.
  explicit ReadPositions(int cpus);
  /// `cpu` has been read up to the record at file offset `last_offset`.
  void Record(int cpu, uint64_t last_offset);
  /// `cpu` has no more records.
  void MarkFinished(int cpu);
  /// Share of the bytes of `extents` (by CPU) read, 0 to 1, each CPU counting the same.
  double FractionDone(const std::vector<CpuDataExtent>& extents) const;

 private:
  int cpus_;
  std::unique_ptr<std::atomic<uint64_t>[]> last_offset_;
  std::unique_ptr<std::atomic<bool>[]> finished_;
};

/// Decodes chunks of the given CPUs when asked, on the calling thread: one stream per CPU.
class CpuChunkReader : public ChunkSource {
 public:
  /// Streams are `cpus` (indices into `streams`), decoded with `decoder`; `observer` (may be
  /// null) sees each chunk once decoded. Every argument must outlive the reader.
  CpuChunkReader(ChunkDecoder& decoder, std::vector<CpuStream>& streams, std::vector<int> cpus,
                 ReadPositions& positions, DecodedRecordsObserver* observer);
  int streams() const override { return static_cast<int>(cpus_.size()); }
  const DecodedChunk* NextChunk(int stream) override;
  /// Decodes the next chunk of `stream` into `chunk`; false (the chunk emptied) when the CPU
  /// has no more.
  bool DecodeNext(int stream, DecodedChunk* chunk);
  /// True when `stream`'s CPU has no more records.
  bool Finished(int stream) const;

 private:
  ChunkDecoder& decoder_;
  std::vector<CpuStream>& cpu_streams_;
  std::vector<int> cpus_;
  ReadPositions& positions_;
  DecodedRecordsObserver* observer_;
  std::vector<DecodedChunk> chunks_;  // one per stream
};

/// The streams the loader merges, with the reading's errors and progress.
class CpuDataSource : public ChunkSource {
 public:
  /// First reading error of any CPU.
  virtual absl::Status status() const = 0;
  /// Share of the CPU data read so far.
  virtual double FractionDone(const std::vector<CpuDataExtent>& extents) const = 0;

 protected:
  // First reading error of `streams`.
  static absl::Status FirstError(const std::vector<CpuStream>& streams);
};

/// Decodes on the merging thread, one stream per CPU.
class InlineChunkSource : public CpuDataSource {
 public:
  /// `observer` (may be null) sees each chunk once decoded.
  InlineChunkSource(const TraceFormats& formats, std::vector<CpuStream> streams,
                    DecodedRecordsObserver* observer = nullptr);
  int streams() const override { return reader_.streams(); }
  const DecodedChunk* NextChunk(int stream) override { return reader_.NextChunk(stream); }
  absl::Status status() const override { return FirstError(streams_); }
  double FractionDone(const std::vector<CpuDataExtent>& extents) const override {
    return positions_.FractionDone(extents);
  }

 private:
  ChunkDecoder decoder_;
  std::vector<CpuStream> streams_;
  ReadPositions positions_;
  CpuChunkReader reader_;
};

/// Worker threads each own a subset of the CPUs (balanced by bytes) and decode them ahead of
/// the merging thread into rings of chunks. A worker either merges its CPUs into one stream
/// (`merge_per_worker`: the merging thread only merges the workers' streams) or hands each CPU
/// over as a stream of its own. A worker always fills the stream of its own with the fewest
/// ready chunks, so the merging thread, which holds one chunk of every stream, never waits on
/// a worker that waits on it; either side, once asleep, wakes only when half a ring is
/// free or filled. Memory stays at a few chunks per stream whatever the trace length.
class ThreadedChunkSource : public CpuDataSource {
 public:
  /// Starts up to `workers` threads over `streams` (CPUs balanced by `bytes`); `observer`
  /// (may be null) sees each chunk on the worker that decoded it.
  ThreadedChunkSource(const TraceFormats& formats, std::vector<CpuStream> streams,
                      const std::vector<uint64_t>& bytes, int workers, bool merge_per_worker,
                      DecodedRecordsObserver* observer = nullptr);
  ~ThreadedChunkSource() override;
  int streams() const override { return static_cast<int>(outputs_.size()); }
  const DecodedChunk* NextChunk(int stream) override;
  absl::Status status() const override { return FirstError(streams_); }
  double FractionDone(const std::vector<CpuDataExtent>& extents) const override {
    return positions_.FractionDone(extents);
  }

 private:
  // One stream the merging thread reads, in a ring of chunks: one CPU of a worker, decoded
  // straight into the ring, or several, merged into it.
  struct Output {
    Output(ChunkDecoder& decoder, std::vector<CpuStream>& streams, std::vector<int> cpus,
           ReadPositions& positions, DecodedRecordsObserver* observer, int all_cpus);
    CpuChunkReader reader;
    std::optional<ChunkMerge> merge;  // of several CPUs; none for one
    std::vector<DecodedChunk> slots;
    int64_t produced = 0;  // chunks written
    int64_t released = 0;  // chunks the merging thread is done with
    bool holding = false;  // the merging thread reads slot `released`
    bool done = false;     // the last chunk is written
    // Ready chunks at which a sleeping side wakes: the worker of a full ring once the
    // merging thread has taken this many, the merging thread at an empty one once this many
    // are ready.
    int64_t half() const { return static_cast<int64_t>(slots.size() / 2); }
  };
  struct Worker {
    explicit Worker(const TraceFormats& formats) : decoder(formats) {}
    ChunkDecoder decoder;
    std::vector<Output*> outputs;
    std::thread thread;
  };

  void Run(Worker& worker);
  // True when one of the worker's streams not ended has half its ring free (mutex_ held).
  static bool HalfTaken(const Worker& worker);
  // Fills `chunk` with the output's next events; false when they were its last.
  static bool Fill(Output& output, ChunkDecoder& decoder, DecodedChunk* chunk);

  std::vector<CpuStream> streams_;
  ReadPositions positions_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Output>> outputs_;
  std::mutex mutex_;
  std::condition_variable chunk_ready_;  // the merging thread waits on it
  std::condition_variable slot_free_;    // workers wait on it
  bool stop_ = false;
};

}  // namespace napiscope::internal
