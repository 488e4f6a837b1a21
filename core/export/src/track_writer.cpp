#include "track_writer.h"

#include <algorithm>
#include <type_traits>

#include "perfetto_fields.h"

namespace napiscope::perfetto_export {
namespace {

namespace f = fields;

// DebugAnnotations, each {value, name} in field-number order.
void WriteArgs(ProtoWriter& out, std::span<const Arg> args) {
  for (const Arg& arg : args) {
    ProtoWriter::Nested annotation = out.BeginNested(f::track_event::kDebugAnnotations);
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
    out.String(f::debug_annotation::kName, arg.name);
    out.EndNested(annotation);
  }
}

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

ProtoWriter& TrackWriter::BeginEvent(uint64_t track, TimestampNs ts_ns, uint32_t type,
                                     std::span<const Arg> args) {
  // Room for lengths up to 127 bytes: most events, args included, are shorter (a longer one
  // moves its body by a byte or two; a wrong guess of 2 bytes would move every short one).
  ProtoWriter& packet = out_->BeginPacket(1);
  packet.Varint(f::packet::kTimestamp, static_cast<uint64_t>(std::max<TimestampNs>(0, ts_ns)));
  out_->SequenceId();
  event_ = packet.BeginNested(f::packet::kTrackEvent, 1);
  WriteArgs(packet, args);
  packet.Varint(f::track_event::kType, type);
  packet.Varint(f::track_event::kTrackUuid, track);
  return packet;
}

void TrackWriter::EndEvent() {
  ProtoWriter& packet = out_->packet();
  packet.EndNested(event_);
  out_->EndPacket();
}

void TrackWriter::WriteNamed(std::string_view category, std::string_view name, Flows flows) {
  ProtoWriter& packet = out_->packet();
  packet.String(f::track_event::kCategories, category);
  packet.String(f::track_event::kName, name);
  for (uint64_t id : flows.out) packet.Fixed64(f::track_event::kFlowIds, id);
  for (uint64_t id : flows.in) packet.Fixed64(f::track_event::kTerminatingFlowIds, id);
}

void TrackWriter::Slice(uint64_t track, TimestampNs begin_ns, TimestampNs end_ns,
                        std::string_view category, std::string_view name, std::span<const Arg> args,
                        Flows flows) {
  BeginEvent(track, begin_ns, f::track_event::kTypeSliceBegin, args);
  WriteNamed(category, name, flows);
  EndEvent();
  BeginEvent(track, std::max(begin_ns, end_ns), f::track_event::kTypeSliceEnd, {});
  EndEvent();
  out_->PacketsDone();
  ++stats_->slices;
}

void TrackWriter::Instant(uint64_t track, TimestampNs ts_ns, std::string_view category,
                          std::string_view name, std::span<const Arg> args, Flows flows) {
  BeginEvent(track, ts_ns, f::track_event::kTypeInstant, args);
  WriteNamed(category, name, flows);
  EndEvent();
  out_->PacketsDone();
  ++stats_->instants;
}

void TrackWriter::Counter(uint64_t track, TimestampNs ts_ns, int64_t value) {
  ProtoWriter& packet = BeginEvent(track, ts_ns, f::track_event::kTypeCounter, {});
  packet.Int(f::track_event::kCounterValue, value);
  EndEvent();
  out_->PacketsDone();
  ++stats_->counter_values;
}

}  // namespace napiscope::perfetto_export
