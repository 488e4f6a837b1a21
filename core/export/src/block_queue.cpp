#include "block_queue.h"

#include <string_view>

namespace napiscope::perfetto_export {

BlockQueue::BlockQueue(PacketWriter* out, bool threaded) : out_(out), threaded_(threaded) {
  ProtoWriter opening;
  packet_framing::OpeningPacket(opening);
  Put(std::move(opening));
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

void BlockQueue::Put(ProtoWriter block) {
  if (block.size() == 0) return;
  std::unique_lock lock(mutex_);
  if (finishing_) return;  // after Finish (an abandoned export): nothing more is written
  if (threaded_) {
    room_.wait(lock, [this] { return queued_.size() < kMaxQueued || finishing_; });
  }
  queued_bytes_ += block.size();
  queued_.push_back(std::move(block));
  // The writer is woken once a writev's worth is queued, not for every block.
  if (!EnoughToWrite()) return;
  if (threaded_) {
    // Woken after the unlock, the writer does not block at once on the mutex held here.
    lock.unlock();
    work_.notify_one();
  } else {
    Write(&queued_);
    Recycle(&queued_);
    queued_bytes_ = 0;
  }
}

void BlockQueue::Write(std::vector<ProtoWriter>* blocks) {
  std::vector<std::string_view> pieces;
  pieces.reserve(blocks->size());
  for (const ProtoWriter& block : *blocks) pieces.push_back(block.bytes());
  out_->Write(pieces);
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
    if (!threaded_) {
      Write(&queued_);
      Recycle(&queued_);
      queued_bytes_ = 0;
    }
  }
  work_.notify_one();
  room_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace napiscope::perfetto_export
