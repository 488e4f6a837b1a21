#include "track_writer.h"

#include <algorithm>
#include <type_traits>

#include "perfetto_fields.h"

namespace napiscope::perfetto_export {
namespace {

namespace f = fields;

// DebugAnnotations, each {name_iid, value} in field-number order.
void WriteArgs(ProtoWriter& out, std::span<const Arg> args) {
  for (const Arg& arg : args) {
    ProtoWriter::Nested annotation = out.BeginNested(f::track_event::kDebugAnnotations);
    out.Varint(f::debug_annotation::kNameIid, arg.name_iid);
    std::visit(
        [&out](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            out.Int(f::debug_annotation::kIntValue, value);
          } else if constexpr (std::is_same_v<T, double>) {
            out.Double(f::debug_annotation::kDoubleValue, value);
          } else if constexpr (std::is_same_v<T, bool>) {
            out.Varint(f::debug_annotation::kBoolValue, value ? 1 : 0);
          } else {
            out.String(f::debug_annotation::kStringValue, value);
          }
        },
        arg.value);
    out.EndNested(annotation);
  }
}

// The most bytes a TrackEvent packet takes apart from its args and flows: the packet's and the
// TrackEvent's tags and lengths (and room for lengths longer than a byte), then timestamp,
// sequence id, category, type, name, track, counter value and sequence flags, each a varint of
// at most 10 bytes with a tag of 1 or 2.
constexpr size_t kEventPacketBytes = 128;
// The most an arg takes apart from the bytes of a string value (tag, length, name, value).
constexpr size_t kArgBytes = 48;
// A flow id: a 2-byte tag and a fixed64.
constexpr size_t kFlowBytes = 10;

size_t MaxBytes(std::span<const Arg> args, Flows flows) {
  size_t bytes = kEventPacketBytes + (flows.out.size() + flows.in.size()) * kFlowBytes;
  for (const Arg& arg : args) {
    bytes += kArgBytes;
    if (const auto* text = std::get_if<std::string_view>(&arg.value)) bytes += text->size();
  }
  return bytes;
}

// A whole TracePacket holding one TrackEvent, fields in number order (the bytes BeginEvent,
// WriteFlows and EndEvent write, without InternedData), through one pointer.
[[gnu::always_inline]] inline void WriteEventPacket(RawFields& out, uint64_t track,
                                                    TimestampNs ts_ns, uint32_t type,
                                                    uint64_t category, uint64_t name,
                                                    std::span<const Arg> args, Flows flows,
                                                    const int64_t* counter_value, bool named) {
  uint8_t* packet = out.BeginNested(f::trace::kPacket);
  out.Varint(f::packet::kTimestamp, static_cast<uint64_t>(std::max<TimestampNs>(0, ts_ns)));
  out.Varint(f::packet::kTrustedPacketSequenceId, packet_framing::kSequenceId);
  uint8_t* event = out.BeginNested(f::packet::kTrackEvent);
  if (category != 0) out.Varint(f::track_event::kCategoryIids, category);
  for (const Arg& arg : args) {
    uint8_t* annotation = out.BeginNested(f::track_event::kDebugAnnotations);
    out.Varint(f::debug_annotation::kNameIid, arg.name_iid);
    if (const auto* i = std::get_if<int64_t>(&arg.value)) {
      out.Int(f::debug_annotation::kIntValue, *i);
    } else if (const auto* d = std::get_if<double>(&arg.value)) {
      out.Double(f::debug_annotation::kDoubleValue, *d);
    } else if (const auto* b = std::get_if<bool>(&arg.value)) {
      out.Varint(f::debug_annotation::kBoolValue, *b ? 1 : 0);
    } else {
      out.String(f::debug_annotation::kStringValue, *std::get_if<std::string_view>(&arg.value));
    }
    out.EndNested(annotation);
  }
  out.Varint(f::track_event::kType, type);
  if (name != 0) out.Varint(f::track_event::kNameIid, name);
  out.Varint(f::track_event::kTrackUuid, track);
  if (counter_value != nullptr) out.Int(f::track_event::kCounterValue, *counter_value);
  for (uint64_t id : flows.out) out.Fixed64(f::track_event::kFlowIds, id);
  for (uint64_t id : flows.in) out.Fixed64(f::track_event::kTerminatingFlowIds, id);
  out.EndNested(event);
  if (named) out.Varint(f::packet::kSequenceFlags, f::packet::kSeqNeedsIncrementalState);
  out.EndNested(packet);
}

// InternedData's field of each table, in InternTable order.
constexpr uint32_t kTableFields[] = {f::interned::kEventCategories, f::interned::kEventNames,
                                     f::interned::kDebugAnnotationNames};

}  // namespace

uint64_t TrackWriter::Describe_(const TrackSpec& spec) {
  uint64_t uuid = next_uuid_++;
  ProtoWriter& packet = out_->BeginPacket();
  out_->SequenceId();
  ProtoWriter::Nested track = packet.BeginNested(f::packet::kTrackDescriptor);
  packet.Varint(f::track_descriptor::kUuid, uuid);
  packet.String(f::track_descriptor::kName, spec.name);
  if (spec.parent_uuid != 0) packet.Varint(f::track_descriptor::kParentUuid, spec.parent_uuid);
  if (spec.counter) {
    ProtoWriter::Nested counter = packet.BeginNested(f::track_descriptor::kCounter);
    packet.Varint(f::track_descriptor::kCounterUnit, f::track_descriptor::kUnitCount);
    packet.EndNested(counter);
  }
  packet.EndNested(track);
  out_->EndPacket();
  out_->PacketsDone();
  ++stats_->tracks;
  return uuid;
}

uint64_t TrackWriter::Intern(InternTable table, std::string_view name) {
  Table& t = tables_[static_cast<size_t>(table)];
  if (auto it = t.iids.find(absl::string_view(name.data(), name.size())); it != t.iids.end()) {
    return it->second;
  }
  uint64_t iid = t.iids.size() + 1;  // iids count from 1 in each table (0: not set)
  t.iids.emplace(std::string(name), iid);
  t.unwritten.emplace_back(iid, std::string(name));
  unwritten_ = true;
  return iid;
}

void TrackWriter::WriteNewInterned(ProtoWriter& packet) {
  ProtoWriter::Nested data = packet.BeginNested(f::packet::kInternedData, 2);
  for (size_t table = 0; table < tables_.size(); ++table) {
    for (const auto& [iid, name] : tables_[table].unwritten) {
      ProtoWriter::Nested entry = packet.BeginNested(kTableFields[table]);
      packet.Varint(f::interned::kIid, iid);
      packet.String(f::interned::kName, name);
      packet.EndNested(entry);
    }
    tables_[table].unwritten.clear();
  }
  packet.EndNested(data);
  unwritten_ = false;
}

ProtoWriter& TrackWriter::BeginEvent(uint64_t track, TimestampNs ts_ns, uint32_t type,
                                     uint64_t category, uint64_t name,
                                     std::span<const Arg> args) {
  // Room for lengths up to 127 bytes: nearly all events, args included, are shorter (a longer
  // one moves its body by a byte or two; a guess of 2 bytes would move every short one).
  ProtoWriter& packet = out_->BeginPacket(1);
  packet.Varint(f::packet::kTimestamp, static_cast<uint64_t>(std::max<TimestampNs>(0, ts_ns)));
  out_->SequenceId();
  event_ = packet.BeginNested(f::packet::kTrackEvent, 1);
  if (category != 0) packet.Varint(f::track_event::kCategoryIids, category);
  WriteArgs(packet, args);
  packet.Varint(f::track_event::kType, type);
  if (name != 0) packet.Varint(f::track_event::kNameIid, name);
  packet.Varint(f::track_event::kTrackUuid, track);
  return packet;
}

void TrackWriter::EndEvent(bool named) {
  ProtoWriter& packet = out_->packet();
  packet.EndNested(event_);
  if (named) {
    if (unwritten_) WriteNewInterned(packet);
    packet.Varint(f::packet::kSequenceFlags, f::packet::kSeqNeedsIncrementalState);
  }
  out_->EndPacket();
}

void TrackWriter::WriteFlows(Flows flows) {
  ProtoWriter& packet = out_->packet();
  for (uint64_t id : flows.out) packet.Fixed64(f::track_event::kFlowIds, id);
  for (uint64_t id : flows.in) packet.Fixed64(f::track_event::kTerminatingFlowIds, id);
}

// Packets that define interned strings take the general path (BeginEvent, EndEvent); the others,
// nearly all, are written whole through one pointer.
void TrackWriter::Slice(uint64_t track, TimestampNs begin_ns, TimestampNs end_ns,
                        uint64_t category, uint64_t name, std::span<const Arg> args,
                        Flows flows) {
  TimestampNs slice_end_ns = std::max(begin_ns, end_ns);
  if (unwritten_) [[unlikely]] {
    BeginEvent(track, begin_ns, f::track_event::kTypeSliceBegin, category, name, args);
    WriteFlows(flows);
    EndEvent(true);
    ProtoWriter& block = out_->block();
    RawFields out = block.Room(kEventPacketBytes);
    WriteEventPacket(out, track, slice_end_ns, f::track_event::kTypeSliceEnd, 0, 0, {}, {}, nullptr,
                     false);
    block.Commit(out);
  } else {
    ProtoWriter& block = out_->block();
    RawFields out = block.Room(MaxBytes(args, flows) + kEventPacketBytes);
    WriteEventPacket(out, track, begin_ns, f::track_event::kTypeSliceBegin, category, name, args,
                     flows, nullptr, true);
    WriteEventPacket(out, track, slice_end_ns, f::track_event::kTypeSliceEnd, 0, 0, {}, {}, nullptr,
                     false);
    block.Commit(out);
  }
  out_->PacketsDone();
  ++stats_->slices;
}

void TrackWriter::Instant(uint64_t track, TimestampNs ts_ns, uint64_t category, uint64_t name,
                          std::span<const Arg> args, Flows flows) {
  if (unwritten_) [[unlikely]] {
    BeginEvent(track, ts_ns, f::track_event::kTypeInstant, category, name, args);
    WriteFlows(flows);
    EndEvent(true);
  } else {
    ProtoWriter& block = out_->block();
    RawFields out = block.Room(MaxBytes(args, flows));
    WriteEventPacket(out, track, ts_ns, f::track_event::kTypeInstant, category, name, args, flows,
                     nullptr, true);
    block.Commit(out);
  }
  out_->PacketsDone();
  ++stats_->instants;
}

void TrackWriter::Counter(uint64_t track, TimestampNs ts_ns, int64_t value) {
  ProtoWriter& block = out_->block();
  RawFields out = block.Room(kEventPacketBytes);
  WriteEventPacket(out, track, ts_ns, f::track_event::kTypeCounter, 0, 0, {}, {}, &value, false);
  block.Commit(out);
  out_->PacketsDone();
  ++stats_->counter_values;
}

}  // namespace napiscope::perfetto_export
