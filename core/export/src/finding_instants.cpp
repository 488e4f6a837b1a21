#include "finding_instants.h"

#include <deque>
#include <string>

#include "napiscope/json_text.h"

namespace napiscope::perfetto_export {
namespace {

// The evidence's top-level values as args; nested objects and arrays as JSON text.
void EvidenceArgs(const nlohmann::json& evidence, std::deque<std::string>* storage,
                  TrackWriter* writer, std::vector<Arg>* args) {
  if (!evidence.is_object()) return;
  for (const auto& [key, value] : evidence.items()) {
    uint64_t name = writer->ArgName("evidence." + key);
    if (value.is_number_integer()) {
      args->push_back({name, value.get<int64_t>()});
    } else if (value.is_number()) {
      args->push_back({name, value.get<double>()});
    } else if (value.is_boolean()) {
      args->push_back({name, value.get<bool>()});
    } else if (value.is_string()) {
      args->push_back({name, std::string_view(value.get_ref<const std::string&>())});
    } else {
      args->push_back({name, std::string_view(storage->emplace_back(value.dump()))});
    }
  }
}

}  // namespace

void WriteFindingInstants(const std::vector<Finding>& findings, TrackLayout* layout) {
  for (const Finding& finding : findings) {
    uint64_t track;
    if (finding.cpu >= 0) {
      track = layout->CpuTrack(TrackKind::kCpuFindings, static_cast<uint16_t>(finding.cpu));
    } else if (finding.pid >= 0) {
      track = layout->ThreadFindings(finding.pid);
    } else {
      track = layout->TraceFindings();
    }
    std::deque<std::string> storage;
    TrackWriter* writer = layout->writer();
    std::vector<Arg> args = {{writer->ArgName("rule"), std::string_view(finding.rule)},
                             {writer->ArgName("severity"), SeverityName(finding.severity)},
                             {writer->ArgName("summary"), std::string_view(finding.summary)},
                             {writer->ArgName("start_ns"), int64_t{finding.start_ns}},
                             {writer->ArgName("end_ns"), int64_t{finding.end_ns}},
                             {writer->ArgName("cpu"), int64_t{finding.cpu}}};
    EvidenceArgs(finding.evidence, &storage, writer, &args);
    writer->Instant(track, finding.start_ns, writer->Category("finding"),
                    writer->EventName(finding.rule), args);
  }
}

}  // namespace napiscope::perfetto_export
