// Where the merge gets each CPU's decoded chunks from: decoded on demand on the calling
// thread, or by worker threads that each own a subset of the CPUs.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <absl/status/status.h>

#include "load/chunk_decoder.h"
#include "napiscope/loader.h"

namespace napiscope::internal {

/// Hands out the chunks of every CPU in order.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  /// The next chunk of `cpu` (valid until the next call for that CPU), nullptr when the CPU
  /// has no more. Releases the chunk returned before for that CPU.
  virtual const DecodedChunk* NextChunk(int cpu) = 0;
  /// First reading error of any CPU.
  virtual absl::Status status() const = 0;
};

/// Decodes a chunk when the merge asks for it, on the merge's thread.
class InlineChunkSource : public ChunkSource {
 public:
  /// `observer` (may be null) sees each chunk once decoded.
  InlineChunkSource(const TraceFormats& formats, std::vector<CpuStream> streams,
                    DecodedRecordsObserver* observer = nullptr);
  const DecodedChunk* NextChunk(int cpu) override;
  absl::Status status() const override;

 private:
  ChunkDecoder decoder_;
  DecodedRecordsObserver* observer_;
  std::vector<CpuStream> streams_;
  std::vector<DecodedChunk> chunks_;  // one per CPU
};

/// Worker threads decode ahead into a small ring of chunks per CPU; memory stays at
/// CPUs x kSlots chunks whatever the trace length. A worker always refills the CPU of its
/// own with the fewest ready chunks, so the merge, which needs one chunk of every CPU, never
/// waits on a worker that waits on it.
class ThreadedChunkSource : public ChunkSource {
 public:
  /// Chunks decoded ahead per CPU.
  static constexpr int kSlots = 4;

  /// Starts `workers` threads over `streams` (balanced by `bytes` per CPU); `observer` (may be
  /// null) sees each chunk on the worker that decoded it.
  ThreadedChunkSource(const TraceFormats& formats, std::vector<CpuStream> streams,
                      const std::vector<uint64_t>& bytes, int workers,
                      DecodedRecordsObserver* observer = nullptr);
  ~ThreadedChunkSource() override;
  const DecodedChunk* NextChunk(int cpu) override;
  absl::Status status() const override;

 private:
  struct CpuRing {
    CpuStream stream;
    DecodedChunk slots[kSlots];
    int64_t produced = 0;   // chunks written
    int64_t released = 0;   // chunks the merge is done with
    bool holding = false;   // the merge reads slot `released`
    bool done = false;      // the stream has no more chunks
  };
  struct Worker {
    std::unique_ptr<ChunkDecoder> decoder;
    std::vector<int> cpus;
    std::thread thread;
  };

  void Run(Worker& worker);

  DecodedRecordsObserver* observer_;
  std::vector<CpuRing> rings_;
  std::vector<Worker> workers_;
  std::mutex mutex_;
  std::condition_variable chunk_ready_;   // merge waits on it
  std::condition_variable slot_free_;     // workers wait on it
  bool stop_ = false;
};

}  // namespace napiscope::internal
