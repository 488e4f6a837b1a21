#include "track_writer.h"

#include <algorithm>
#include <type_traits>

namespace napiscope::perfetto_export {
namespace {

using perfetto::protos::TrackEvent;

void AddArgs(TrackEvent* event, std::span<const Arg> args) {
  for (const Arg& arg : args) {
    perfetto::protos::DebugAnnotation* annotation = event->add_debug_annotations();
    annotation->set_name(std::string(arg.name));
    std::visit(
        [annotation](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            annotation->set_int_value(value);
          } else if constexpr (std::is_same_v<T, double>) {
            annotation->set_double_value(value);
          } else if constexpr (std::is_same_v<T, bool>) {
            annotation->set_bool_value(value);
          } else {
            annotation->set_string_value(std::string(value));
          }
        },
        arg.value);
  }
}

void AddFlows(TrackEvent* event, const Flows& flows) {
  for (uint64_t id : flows.out) event->add_flow_ids(id);
  for (uint64_t id : flows.in) event->add_terminating_flow_ids(id);
}

}  // namespace

uint64_t TrackWriter::Describe_(const TrackSpec& spec) {
  uint64_t uuid = next_uuid_++;
  perfetto::protos::TracePacket* packet = out_->NewPacket();
  perfetto::protos::TrackDescriptor* track = packet->mutable_track_descriptor();
  track->set_uuid(uuid);
  if (spec.parent_uuid != 0) track->set_parent_uuid(spec.parent_uuid);
  track->set_name(spec.name);
  if (spec.counter) {
    track->mutable_counter()->set_unit(perfetto::protos::CounterDescriptor::UNIT_COUNT);
  }
  out_->Write(*packet);
  ++stats_->tracks;
  return uuid;
}

perfetto::protos::TracePacket* TrackWriter::NewEvent(uint64_t track, TimestampNs ts_ns,
                                                     TrackEvent::Type type) {
  perfetto::protos::TracePacket* packet = out_->NewPacket();
  packet->set_timestamp(static_cast<uint64_t>(std::max<TimestampNs>(0, ts_ns)));
  TrackEvent* event = packet->mutable_track_event();
  event->set_type(type);
  event->set_track_uuid(track);
  return packet;
}

void TrackWriter::Slice(uint64_t track, TimestampNs begin_ns, TimestampNs end_ns,
                        std::string_view category, std::string_view name,
                        std::span<const Arg> args, Flows flows) {
  perfetto::protos::TracePacket* packet = NewEvent(track, begin_ns, TrackEvent::TYPE_SLICE_BEGIN);
  TrackEvent* begin = packet->mutable_track_event();
  begin->add_categories(std::string(category));
  begin->set_name(std::string(name));
  AddArgs(begin, args);
  AddFlows(begin, flows);
  out_->Write(*packet);
  out_->Write(*NewEvent(track, std::max(begin_ns, end_ns), TrackEvent::TYPE_SLICE_END));
  ++stats_->slices;
}

void TrackWriter::Instant(uint64_t track, TimestampNs ts_ns, std::string_view category,
                          std::string_view name, std::span<const Arg> args, Flows flows) {
  perfetto::protos::TracePacket* packet = NewEvent(track, ts_ns, TrackEvent::TYPE_INSTANT);
  TrackEvent* instant = packet->mutable_track_event();
  instant->add_categories(std::string(category));
  instant->set_name(std::string(name));
  AddArgs(instant, args);
  AddFlows(instant, flows);
  out_->Write(*packet);
  ++stats_->instants;
}

void TrackWriter::Counter(uint64_t track, TimestampNs ts_ns, int64_t value) {
  perfetto::protos::TracePacket* packet = NewEvent(track, ts_ns, TrackEvent::TYPE_COUNTER);
  packet->mutable_track_event()->set_counter_value(value);
  out_->Write(*packet);
  ++stats_->counter_values;
}

}  // namespace napiscope::perfetto_export
