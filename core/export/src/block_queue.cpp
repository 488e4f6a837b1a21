#include "block_queue.h"

#include <algorithm>
#include <string_view>

namespace napiscope::perfetto_export {

BlockQueue::BlockQueue(PacketWriter* out, bool threaded) : out_(out), threaded_(threaded) {
  open_stamps_.fill(kAfterTrace);
  ProtoWriter opening;
  packet_framing::OpeningPacket(opening);
  Put(std::move(opening), BlockKey{kBeforeTrace, block_source::kOpening, 0});
}

void BlockQueue::Start() {
  if (!threaded_ || started_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

BlockQueue::~BlockQueue() { Finish(); }

ProtoWriter BlockQueue::Take(size_t bytes) {
  ProtoWriter block;
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      block = std::move(free_.back());
      free_.pop_back();
    }
  }
  block.Reserve(bytes);
  return block;
}

void BlockQueue::Put(ProtoWriter block, BlockKey key) {
  std::unique_lock lock(mutex_);
  if (finishing_) return;  // after Finish (an abandoned export): nothing more is written
  if (threaded_) {
    room_.wait(lock, [this] { return queued_.size() < kMaxQueued || finishing_; });
  }
  if (key.source < open_stamps_.size()) open_stamps_[key.source] = kAfterTrace;
  if (block.size() != 0) {
    held_bytes_ += block.size();
    held_.push_back(Held{key, std::move(block)});
    std::push_heap(held_.begin(), held_.end(), LowestKeyOnTop);
  }
  Release();
  WriteIfEnough(lock);
}

void BlockQueue::Opened(uint32_t source, TimestampNs stamp) {
  std::lock_guard lock(mutex_);
  if (source < open_stamps_.size()) open_stamps_[source] = stamp;
}

void BlockQueue::Progress(TimestampNs ts_ns) {
  std::unique_lock lock(mutex_);
  if (finishing_ || ts_ns <= progress_ns_) return;
  progress_ns_ = ts_ns;
  Release();
  WriteIfEnough(lock);
}

void BlockQueue::Release() {
  TimestampNs before_ns = progress_ns_;
  for (TimestampNs open_ns : open_stamps_) before_ns = std::min(before_ns, open_ns);
  // Beyond kMaxHeldBytes the lowest keys go anyway: a trace whose time runs ahead of the
  // analysis (a crafted or corrupt one) costs order, not memory.
  while (!held_.empty() &&
         (finishing_ || held_.front().key.stamp < before_ns || held_bytes_ > kMaxHeldBytes)) {
    std::pop_heap(held_.begin(), held_.end(), LowestKeyOnTop);
    const size_t bytes = held_.back().block.size();
    held_bytes_ -= bytes;
    queued_bytes_ += bytes;
    queued_.push_back(std::move(held_.back().block));
    held_.pop_back();
  }
}

void BlockQueue::WriteIfEnough(std::unique_lock<std::mutex>& lock) {
  // The writer is woken once a writev's worth is queued, not for every block.
  if (!EnoughToWrite()) return;
  if (threaded_) {
    // Woken after the unlock, the writer does not block at once on the mutex held here.
    lock.unlock();
    work_.notify_one();
  } else {
    WriteQueued();
  }
}

void BlockQueue::Write(std::vector<ProtoWriter>* blocks) {
  std::vector<std::string_view> pieces;
  pieces.reserve(blocks->size());
  for (const ProtoWriter& block : *blocks) pieces.push_back(block.bytes());
  out_->Write(pieces);
}

void BlockQueue::WriteQueued() {
  Write(&queued_);
  Recycle(&queued_);
  queued_bytes_ = 0;
}

void BlockQueue::Recycle(std::vector<ProtoWriter>* blocks) {
  for (ProtoWriter& block : *blocks) {
    if (free_.size() >= kMaxFree) break;
    block.Clear();
    free_.push_back(std::move(block));
  }
  blocks->clear();
}

void BlockQueue::Run() {
  std::vector<ProtoWriter> writing;
  std::unique_lock lock(mutex_);
  while (true) {
    work_.wait(lock, [this] { return EnoughToWrite() || finishing_; });
    if (queued_.empty()) return;  // finishing, and everything is written
    writing.swap(queued_);
    queued_bytes_ = 0;
    lock.unlock();
    room_.notify_all();
    Write(&writing);
    lock.lock();
    Recycle(&writing);
  }
}

void BlockQueue::Finish() {
  Start();  // a load that failed before it started: the writer ends at once
  {
    std::lock_guard lock(mutex_);
    if (finishing_) return;
    finishing_ = true;
    Release();  // every block held, in key order
    if (!threaded_) WriteQueued();
  }
  work_.notify_one();
  room_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace napiscope::perfetto_export
