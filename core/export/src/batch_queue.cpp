#include "batch_queue.h"

#include "ftrace_event_encode.h"

namespace napiscope::perfetto_export {

void BatchEncoder::Encode(const ExportBatch& batch) {
  for (std::string_view text : batch.strings) strings_.Append(text);
  std::string_view packets = batch.packets.bytes();
  size_t written = 0;
  for (size_t i = 0; i < batch.bundle_count; ++i) {
    const BundleEntry& bundle = batch.bundles[i];
    out_->WriteEncoded(packets.substr(written, bundle.packets_end - written));
    written = bundle.packets_end;
    Bundle(bundle);
  }
  out_->WriteEncoded(packets.substr(written));
}

void BatchEncoder::Bundle(const BundleEntry& bundle) {
  namespace f = fields;
  // Fields in number order, as the generated classes write them; a bundle of 512 events takes
  // some 40 KB, whose length needs 3 bytes.
  ProtoWriter& packet = out_->buffer();
  ProtoWriter::Nested framed = packet_framing::Begin(packet, 3);
  ProtoWriter::Nested encoded_bundle = packet.BeginNested(f::packet::kFtraceEvents, 3);
  packet.Varint(f::bundle::kCpu, bundle.cpu);
  for (const Event& event : bundle.events) {
    ProtoWriter::Nested encoded = packet.BeginNested(f::bundle::kEvent);
    EncodeFtraceEvent(event, strings_, &packet);
    packet.EndNested(encoded);
  }
  if (bundle.lost_before) packet.Varint(f::bundle::kLostEvents, 1);
  packet.EndNested(encoded_bundle);
  packet_framing::SequenceId(packet);
  packet_framing::FirstPacketFlags(packet, bundle.first_packet);
  packet_framing::End(packet, framed);
  out_->PacketsDone();
}

BatchQueue::BatchQueue(BatchEncoder* encoder, bool threaded) : encoder_(encoder) {
  if (threaded) thread_ = std::thread([this] { Run(); });
}

BatchQueue::~BatchQueue() { Finish(); }

void BatchQueue::SendBundle(uint16_t cpu, bool lost_before, std::vector<Event>* events,
                            const StringTable& strings) {
  // The writing side reads the events' strings by id: it gets views of those interned since
  // the last bundle (the table's strings never move).
  for (; strings_sent_ < strings.size(); ++strings_sent_) {
    current_.strings.push_back(strings.Get(static_cast<StringId>(strings_sent_)));
  }
  if (current_.bundle_count == current_.bundles.size()) current_.bundles.emplace_back();
  BundleEntry& bundle = current_.bundles[current_.bundle_count++];
  bundle.packets_end = current_.packets.size();
  std::swap(bundle.events, *events);  // the entry's empty vector, with its memory, goes back
  bundle.cpu = cpu;
  bundle.lost_before = lost_before;
  bundle.first_packet = std::exchange(first_packet_, false);
  if (current_.bundle_count >= kBatchBundles) Send();
}

void BatchQueue::Send() {
  if (!thread_.joinable()) {
    encoder_->Encode(current_);
    current_.Clear();
    return;
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return full_.size() < kMaxQueuedBatches; });
  full_.push_back(std::move(current_));
  if (free_.empty()) {
    current_ = ExportBatch();
  } else {
    current_ = std::move(free_.back());
    free_.pop_back();
  }
  changed_.notify_all();
}

void BatchQueue::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return !full_.empty() || finishing_; });
    if (full_.empty()) return;  // finishing, and everything is written
    ExportBatch batch = std::move(full_.front());
    full_.pop_front();
    lock.unlock();
    encoder_->Encode(batch);
    batch.Clear();
    lock.lock();
    free_.push_back(std::move(batch));
    changed_.notify_all();
  }
}

void BatchQueue::Finish() {
  if (!Empty()) Send();
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    finishing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

}  // namespace napiscope::perfetto_export
