#include "perfetto_decode.h"

#include <gtest/gtest.h>

#include <google/protobuf/text_format.h>

#include "support/test_support.h"

namespace napiscope::testing {
namespace {

using perfetto::protos::FtraceEvent;
using perfetto::protos::TrackEvent;

nlohmann::json AnnotationValue(const perfetto::protos::DebugAnnotation& a) {
  if (a.has_int_value()) return a.int_value();
  if (a.has_uint_value()) return a.uint_value();
  if (a.has_double_value()) return a.double_value();
  if (a.has_bool_value()) return a.bool_value();
  return a.string_value();
}

// The interning state of packet sequences, built up in file order as Perfetto's reader does:
// a packet's interned_data is taken before the packet's own event is read.
class Interning {
 public:
  explicit Interning(DecodedExport* out) : out_(out) {}

  // Takes packet `i`'s sequence flags and interned data.
  void Take(const perfetto::protos::TracePacket& packet, int i) {
    Sequence& sequence = sequences_[packet.trusted_packet_sequence_id()];
    if ((packet.sequence_flags() & 1) != 0) sequence = Sequence{true, {}};
    if (!packet.has_interned_data()) return;
    const auto& data = packet.interned_data();
    for (const auto& entry : data.event_categories()) Define(&sequence, 0, entry, i);
    for (const auto& entry : data.event_names()) Define(&sequence, 1, entry, i);
    for (const auto& entry : data.debug_annotation_names()) Define(&sequence, 2, entry, i);
  }

  // The string `iid` stands for in `table` (0 categories, 1 event names, 2 annotation names) on
  // packet `i`'s sequence.
  std::string Resolve(const perfetto::protos::TracePacket& packet, int i, int table,
                      uint64_t iid) {
    ++out_->interned_references;
    Sequence& sequence = sequences_[packet.trusted_packet_sequence_id()];
    if (!sequence.cleared) Error(i, "uses interned strings on a sequence never cleared");
    if ((packet.sequence_flags() & 2) == 0) Error(i, "uses interned strings without the flag");
    auto it = sequence.tables[table].find(iid);
    if (it == sequence.tables[table].end()) {
      Error(i, "iid " + std::to_string(iid) + " of table " + std::to_string(table) +
                   " is not defined yet");
      return "";
    }
    return it->second;
  }

 private:
  struct Sequence {
    bool cleared = false;
    std::map<uint64_t, std::string> tables[3];
  };
  template <typename Entry>
  void Define(Sequence* sequence, int table, const Entry& entry, int i) {
    if (entry.iid() == 0) Error(i, "defines iid 0");
    auto [it, inserted] = sequence->tables[table].emplace(entry.iid(), entry.name());
    if (!inserted && it->second != entry.name()) {
      Error(i, "redefines iid " + std::to_string(entry.iid()) + " of table " +
                   std::to_string(table));
    }
  }
  void Error(int i, const std::string& what) {
    out_->interning_errors.push_back("packet " + std::to_string(i) + " " + what);
  }

  DecodedExport* out_;
  std::map<uint32_t, Sequence> sequences_;
};

void CollectTrackEvents(DecodedExport* out) {
  std::map<uint64_t, std::string> names;
  for (const auto& packet : out->trace.packet()) {
    if (packet.has_track_descriptor()) {
      names[packet.track_descriptor().uuid()] = packet.track_descriptor().name();
    }
  }
  // Slices: a begin and the end written right after it on the same track.
  const auto& packets = out->trace.packet();
  Interning interning(out);
  for (int i = 0; i < packets.size(); ++i) {
    interning.Take(packets[i], i);
    if (!packets[i].has_track_event()) continue;
    const TrackEvent& event = packets[i].track_event();
    DecodedEvent decoded;
    decoded.track = names[event.track_uuid()];
    if (event.category_iids_size() > 0) {
      decoded.category = interning.Resolve(packets[i], i, 0, event.category_iids(0));
    } else if (event.categories_size() > 0) {
      decoded.category = event.categories(0);
    }
    decoded.name = event.has_name_iid() ? interning.Resolve(packets[i], i, 1, event.name_iid())
                                        : event.name();
    decoded.ts_ns = packets[i].timestamp();
    for (const auto& a : event.debug_annotations()) {
      std::string name = a.has_name_iid() ? interning.Resolve(packets[i], i, 2, a.name_iid())
                                          : a.name();
      decoded.args[name] = AnnotationValue(a);
    }
    decoded.flows_out.assign(event.flow_ids().begin(), event.flow_ids().end());
    decoded.flows_in.assign(event.terminating_flow_ids().begin(),
                            event.terminating_flow_ids().end());
    switch (event.type()) {
      case TrackEvent::TYPE_SLICE_BEGIN:
        EXPECT_TRUE(i + 1 < packets.size() && packets[i + 1].has_track_event() &&
                    packets[i + 1].track_event().type() == TrackEvent::TYPE_SLICE_END &&
                    packets[i + 1].track_event().track_uuid() == event.track_uuid())
            << "slice without its end at packet " << i;
        if (i + 1 < packets.size()) decoded.end_ns = packets[i + 1].timestamp();
        out->slices.push_back(std::move(decoded));
        break;
      case TrackEvent::TYPE_INSTANT:
        out->instants.push_back(std::move(decoded));
        break;
      case TrackEvent::TYPE_COUNTER:
        out->counters[decoded.track].push_back(event.counter_value());
        break;
      default:
        break;
    }
  }
}

}  // namespace

std::string FtraceEventName(const FtraceEvent& event) {
  switch (event.event_case()) {
    case FtraceEvent::kGeneric: return event.generic().event_name();
    case FtraceEvent::EVENT_NOT_SET: return "";
    default: {
      const google::protobuf::FieldDescriptor* field =
          FtraceEvent::descriptor()->FindFieldByNumber(static_cast<int>(event.event_case()));
      return field != nullptr ? field->name() : "?";
    }
  }
}

std::string ExportWithCli(const std::string& trace, const std::string& args,
                          const std::string& dir) {
  std::string out = dir + "/out.pftrace";
  CommandResult result = RunCommand(CliPath() + " export --format perfetto -q " + args + " -o " +
                                    out + " " + trace);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return out;
}

DecodedExport Decode(const std::string& pftrace, bool parse_text) {
  DecodedExport out;
  std::string text = pftrace + ".txt";
  CommandResult decoded = RunCommand(std::string(NAPISCOPE_PROTOC) +
                                     " --decode=perfetto.protos.Trace -I " +
                                     NAPISCOPE_PERFETTO_PROTO_DIR + " perfetto_trace.proto < " +
                                     pftrace + " > " + text);
  EXPECT_EQ(decoded.exit_code, 0) << "protoc cannot decode " << pftrace << ": " << decoded.err;
  std::string content = ReadFile(text);
  EXPECT_FALSE(content.empty());
  bool parsed = parse_text
                    ? google::protobuf::TextFormat::ParseFromString(content, &out.trace)
                    : out.trace.ParseFromString(ReadFile(pftrace));
  EXPECT_TRUE(parsed) << pftrace;
  for (const auto& packet : out.trace.packet()) {
    if (!packet.has_ftrace_events()) continue;
    const auto& bundle = packet.ftrace_events();
    if (bundle.lost_events()) ++out.bundles_with_lost_events;
    for (const FtraceEvent& event : bundle.event()) {
      std::string name = FtraceEventName(event);
      ++out.ftrace_counts[name];
      ++out.ftrace_counts_per_cpu[{name, bundle.cpu()}];
      out.ftrace_timestamps.push_back(event.timestamp());
    }
  }
  CollectTrackEvents(&out);
  // Every export's interning must hold as Perfetto reads it.
  EXPECT_TRUE(out.interning_errors.empty())
      << pftrace << ": " << out.interning_errors.size() << " interning errors, the first: "
      << (out.interning_errors.empty() ? "" : out.interning_errors.front());
  return out;
}

nlohmann::json CliJson(const std::string& args) {
  CommandResult result = RunCommand(CliPath() + " " + args);
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 2) << result.err;
  return nlohmann::json::parse(result.out, nullptr, false);
}

}  // namespace napiscope::testing
