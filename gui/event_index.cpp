#include "event_index.h"


namespace napiscope::gui {
namespace {

// Header byte of an encoded event.
constexpr uint8_t kKindMask = 0x1f;
constexpr uint8_t kSamePid = 0x20;
constexpr uint8_t kSameFlags = 0x40;
constexpr uint8_t kHasName = 0x80;
// Longest encoding of one event: header, ts, flags, pid, name and up to 7 fields of 10 bytes.
constexpr size_t kMaxEventBytes = 1 + 10 + 1 + 5 + 5 + 7 * 10;

class Writer {
 public:
  explicit Writer(uint8_t* out) : out_(out) {}
  void Byte(uint8_t value) { out_[size_++] = value; }
  void Unsigned(uint64_t value) {
    while (value >= 0x80) {
      out_[size_++] = static_cast<uint8_t>(value | 0x80);
      value >>= 7;
    }
    out_[size_++] = static_cast<uint8_t>(value);
  }
  void Signed(int64_t value) {
    Unsigned((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
  }
  size_t size() const { return size_; }

 private:
  uint8_t* out_;
  size_t size_ = 0;
};

class Reader {
 public:
  explicit Reader(const uint8_t* in) : in_(in) {}
  uint8_t Byte() { return in_[size_++]; }
  uint64_t Unsigned() {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t byte = in_[size_++];
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
  }
  int64_t Signed() {
    uint64_t value = Unsigned();
    return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
  }
  size_t size() const { return size_; }

 private:
  const uint8_t* in_;
  size_t size_ = 0;
};

}  // namespace

uint8_t* EventIndex::ChunkedBytes::Reserve(size_t bytes, uint64_t* offset) {
  if (chunks_.empty() || used_ + bytes > kChunk) {
    chunks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kChunk));  // written before read
    used_ = 0;
  }
  *offset = (chunks_.size() - 1) * kChunk + used_;
  return chunks_.back().get() + used_;
}

void EventIndex::OnEvent(const Event& event) {
  if (event.cpu >= cpus_.size()) cpus_.resize(event.cpu + 1);
  if (rows_ % kCheckpoint == 0) {
    std::vector<uint32_t> counts(cpus_.size());
    for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) counts[cpu] = cpus_[cpu].count;
    checkpoints_.push_back(std::move(counts));
    checkpoint_ts_.push_back(event.ts_ns);
  }
  uint64_t offset = 0;
  if (event.cpu > 0xff && !wide_) {
    // First CPU above 255: the high bytes of the rows so far are all zero.
    wide_ = true;
    for (uint64_t row = 0; row < rows_; ++row) {
      order_high_.Reserve(1, &offset)[0] = 0;
      order_high_.Commit(1);
    }
  }
  order_.Reserve(1, &offset)[0] = static_cast<uint8_t>(event.cpu & 0xff);
  order_.Commit(1);
  if (wide_) {
    order_high_.Reserve(1, &offset)[0] = static_cast<uint8_t>(event.cpu >> 8);
    order_high_.Commit(1);
  }
  ++rows_;

  CpuStream& stream = cpus_[event.cpu];
  uint8_t* out = stream.bytes.Reserve(kMaxEventBytes, &offset);
  if (stream.count % kBlock == 0) {
    stream.blocks.push_back({offset, stream.last_ts_ns, stream.last_pid, stream.last_flags});
  }
  Writer writer(out);
  uint8_t header = static_cast<uint8_t>(event.kind) & kKindMask;
  if (event.pid == stream.last_pid) header |= kSamePid;
  if (event.flags == stream.last_flags) header |= kSameFlags;
  // The name is stored only where it is not the one events of this kind had first.
  size_t kind = static_cast<size_t>(event.kind);
  if (kind < kind_names_.size() && !kind_named_[kind]) {
    kind_named_[kind] = true;
    kind_names_[kind] = event.name;
  }
  if (kind >= kind_names_.size() || kind_names_[kind] != event.name) header |= kHasName;
  writer.Byte(header);
  writer.Unsigned(static_cast<uint64_t>(event.ts_ns - stream.last_ts_ns));
  if ((header & kSameFlags) == 0) writer.Byte(event.flags);
  if ((header & kSamePid) == 0) writer.Signed(event.pid);
  if (header & kHasName) writer.Unsigned(event.name);
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& f = event.sched_switch;
      writer.Signed(f.prev_pid);
      writer.Signed(f.next_pid);
      writer.Signed(f.prev_prio);
      writer.Signed(f.next_prio);
      writer.Unsigned(f.prev_state);
      writer.Unsigned(f.prev_comm);
      writer.Unsigned(f.next_comm);
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      writer.Signed(event.wake.pid);
      writer.Signed(event.wake.prio);
      writer.Signed(event.wake.target_cpu);
      writer.Unsigned(event.wake.comm);
      break;
    case EventKind::kSchedMigrateTask:
      writer.Signed(event.migrate.pid);
      writer.Signed(event.migrate.prio);
      writer.Signed(event.migrate.orig_cpu);
      writer.Signed(event.migrate.dest_cpu);
      writer.Unsigned(event.migrate.comm);
      break;
    case EventKind::kSchedPiSetprio:
      writer.Signed(event.pi.pid);
      writer.Signed(event.pi.old_prio);
      writer.Signed(event.pi.new_prio);
      writer.Unsigned(event.pi.comm);
      break;
    case EventKind::kSchedProcessFork:
      writer.Signed(event.fork.parent_pid);
      writer.Signed(event.fork.child_pid);
      writer.Unsigned(event.fork.child_comm);
      break;
    case EventKind::kSchedProcessExit:
      writer.Signed(event.exit.pid);
      writer.Signed(event.exit.prio);
      writer.Unsigned(event.exit.comm);
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      writer.Signed(event.irq.irq);
      writer.Signed(event.irq.ret);
      writer.Unsigned(event.irq.handler);
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      writer.Unsigned(event.softirq.vec);
      break;
    case EventKind::kNapiPoll: {
      auto [it, added] = napi_ids_.try_emplace(event.napi.napi, napis_.size());
      if (added) napis_.push_back(event.napi.napi);
      writer.Unsigned(it->second);
      writer.Unsigned(event.napi.dev);
      writer.Signed(event.napi.work);
      writer.Signed(event.napi.budget);
      break;
    }
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      writer.Unsigned(event.net.dev);
      writer.Unsigned(event.net.len);
      writer.Signed(event.net.rc);
      break;
    case EventKind::kMissedEvents:
      writer.Signed(event.missed.count);
      break;
    case EventKind::kOther:
    case EventKind::kCount:
      break;
  }
  stream.bytes.Commit(writer.size());
  stream.last_ts_ns = event.ts_ns;
  stream.last_pid = event.pid;
  stream.last_flags = event.flags;
  ++stream.count;
}

void EventIndex::OnEnd() {
  for (CpuStream& stream : cpus_) stream.blocks.shrink_to_fit();
  checkpoints_.shrink_to_fit();
  checkpoint_ts_.shrink_to_fit();
}

Event EventIndex::Decode(const CpuStream& stream, int cpu, uint64_t* offset, TimestampNs* ts_ns,
                         int32_t* pid, uint8_t* flags) const {
  // The writer starts a new chunk when the rest of one cannot hold the longest event: so does
  // the reader.
  if ((*offset & (ChunkedBytes::kChunk - 1)) + kMaxEventBytes > ChunkedBytes::kChunk) {
    *offset = (*offset | (ChunkedBytes::kChunk - 1)) + 1;
  }
  Reader reader(stream.bytes.At(*offset));
  Event event;
  uint8_t header = reader.Byte();
  event.kind = static_cast<EventKind>(header & kKindMask);
  *ts_ns += static_cast<TimestampNs>(reader.Unsigned());
  if ((header & kSameFlags) == 0) *flags = reader.Byte();
  if ((header & kSamePid) == 0) *pid = static_cast<int32_t>(reader.Signed());
  event.ts_ns = *ts_ns;
  event.flags = *flags;
  event.pid = *pid;
  event.cpu = static_cast<uint16_t>(cpu);
  size_t kind = static_cast<size_t>(event.kind);
  if (header & kHasName) {
    event.name = static_cast<StringId>(reader.Unsigned());
  } else if (kind < kind_names_.size()) {
    event.name = kind_names_[kind];
  }
  auto i16 = [&] { return static_cast<int16_t>(reader.Signed()); };
  auto i32 = [&] { return static_cast<int32_t>(reader.Signed()); };
  auto u32 = [&] { return static_cast<uint32_t>(reader.Unsigned()); };
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      SchedSwitchFields& f = event.sched_switch;
      f.prev_pid = i32();
      f.next_pid = i32();
      f.prev_prio = i16();
      f.next_prio = i16();
      f.prev_state = static_cast<uint16_t>(reader.Unsigned());
      f.prev_comm = u32();
      f.next_comm = u32();
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      event.wake.pid = i32();
      event.wake.prio = i16();
      event.wake.target_cpu = i16();
      event.wake.comm = u32();
      break;
    case EventKind::kSchedMigrateTask:
      event.migrate.pid = i32();
      event.migrate.prio = i16();
      event.migrate.orig_cpu = i16();
      event.migrate.dest_cpu = i16();
      event.migrate.comm = u32();
      break;
    case EventKind::kSchedPiSetprio:
      event.pi.pid = i32();
      event.pi.old_prio = i16();
      event.pi.new_prio = i16();
      event.pi.comm = u32();
      break;
    case EventKind::kSchedProcessFork:
      event.fork.parent_pid = i32();
      event.fork.child_pid = i32();
      event.fork.child_comm = u32();
      break;
    case EventKind::kSchedProcessExit:
      event.exit.pid = i32();
      event.exit.prio = i16();
      event.exit.comm = u32();
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      event.irq.irq = i32();
      event.irq.ret = i32();
      event.irq.handler = u32();
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      event.softirq.vec = u32();
      break;
    case EventKind::kNapiPoll:
      event.napi.napi = napis_[u32()];
      event.napi.dev = u32();
      event.napi.work = i32();
      event.napi.budget = i32();
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      event.net.dev = u32();
      event.net.len = u32();
      event.net.rc = i32();
      break;
    case EventKind::kMissedEvents:
      event.missed.count = reader.Signed();
      break;
    case EventKind::kOther:
    case EventKind::kCount:
      break;
  }
  *offset += reader.size();
  return event;
}

Event EventIndex::Get(int cpu, uint32_t index) const {
  const CpuStream& stream = cpus_[cpu];
  const BlockStart& block = stream.blocks[index / kBlock];
  uint64_t offset = block.offset;
  TimestampNs ts_ns = block.ts_ns;
  int32_t pid = block.pid;
  uint8_t flags = block.flags;
  for (uint32_t i = index / kBlock * kBlock; i < index; ++i) {
    Decode(stream, cpu, &offset, &ts_ns, &pid, &flags);
  }
  return Decode(stream, cpu, &offset, &ts_ns, &pid, &flags);
}

EventPosition EventIndex::PositionOf(uint64_t row) const {
  uint16_t cpu = CpuOfRow(row);
  uint64_t checkpoint = row / kCheckpoint;
  const std::vector<uint32_t>& counts = checkpoints_[checkpoint];
  uint32_t index = cpu < counts.size() ? counts[cpu] : 0;
  uint64_t first = checkpoint * kCheckpoint;
  if (!wide_) {
    // Count this CPU's rows since the checkpoint, a chunk-contiguous run at a time.
    uint64_t at = first;
    while (at < row) {
      uint64_t chunk_end = std::min<uint64_t>(row, (at | (ChunkedBytes::kChunk - 1)) + 1);
      const uint8_t* bytes = order_.At(at);
      for (uint64_t i = 0; i < chunk_end - at; ++i) index += bytes[i] == cpu;
      at = chunk_end;
    }
  } else {
    for (uint64_t at = first; at < row; ++at) index += CpuOfRow(at) == cpu;
  }
  return {cpu, index};
}

Event EventIndex::At(uint64_t row) const {
  EventPosition position = PositionOf(row);
  return Get(position.cpu, position.index);
}

TimestampNs EventIndex::TimestampAt(uint64_t row) const { return At(row).ts_ns; }

uint64_t EventIndex::LowerBound(TimestampNs ts_ns) const {
  if (rows_ == 0) return 0;
  // The last checkpoint starting before ts_ns, then a binary search within its rows.
  auto after = std::lower_bound(checkpoint_ts_.begin(), checkpoint_ts_.end(), ts_ns);
  uint64_t checkpoint = after == checkpoint_ts_.begin() ? 0 : (after - checkpoint_ts_.begin()) - 1;
  uint64_t low = checkpoint * kCheckpoint;
  uint64_t high = std::min<uint64_t>(rows_, low + kCheckpoint);
  while (low < high) {
    uint64_t mid = low + (high - low) / 2;
    if (TimestampAt(mid) < ts_ns) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

size_t EventIndex::BytesUsed() const {
  size_t bytes = order_.BytesUsed() + order_high_.BytesUsed();
  for (const CpuStream& stream : cpus_) {
    bytes += stream.bytes.BytesUsed() + stream.blocks.capacity() * sizeof(BlockStart);
  }
  for (const std::vector<uint32_t>& counts : checkpoints_) {
    bytes += counts.capacity() * sizeof(uint32_t) + sizeof(counts);
  }
  bytes += checkpoint_ts_.capacity() * sizeof(TimestampNs) + napis_.capacity() * sizeof(uint64_t);
  return bytes;
}

}  // namespace napiscope::gui
