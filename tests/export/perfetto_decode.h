// Test helpers: export a trace with the CLI, decode the file with protoc and the project's .proto,
// and count what it holds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfetto_trace.pb.h"

namespace napiscope::testing {

/// One slice (begin event) or instant, with its track's name and its args.
struct DecodedEvent {
  std::string track;
  std::string category;
  std::string name;
  uint64_t ts_ns = 0;
  uint64_t end_ns = 0;  ///< slices: the matching end on the same track
  std::map<std::string, nlohmann::json> args;  ///< debug annotations by name
  std::vector<uint64_t> flows_out;
  std::vector<uint64_t> flows_in;
};

/// What an exported trace holds, decoded.
struct DecodedExport {
  perfetto::protos::Trace trace;
  std::map<std::string, int64_t> ftrace_counts;  ///< events per event name
  std::map<std::pair<std::string, uint32_t>, int64_t> ftrace_counts_per_cpu;
  int64_t bundles_with_lost_events = 0;
  std::vector<uint64_t> ftrace_timestamps;  ///< every ftrace event's timestamp
  std::vector<DecodedEvent> slices;
  std::vector<DecodedEvent> instants;
  std::map<std::string, std::vector<int64_t>> counters;  ///< values per counter track name
  /// Interned strings referred to by the TrackEvents (categories, names, annotation names).
  int64_t interned_references = 0;
  /// Broken interning, as Perfetto's reader would meet it: an iid used before its sequence
  /// defined it (in an earlier packet or the same one), defined twice with different strings,
  /// iid 0, a packet using interned strings without SEQ_NEEDS_INCREMENTAL_STATE or on a
  /// sequence whose incremental state was never cleared.
  std::vector<std::string> interning_errors;
};

/// The event name Perfetto's message stands for ("sched_switch"; generic: its event_name).
std::string FtraceEventName(const perfetto::protos::FtraceEvent& event);

/// Runs `napiscope export --format perfetto ARGS -o OUT TRACE`; fails the test on error.
std::string ExportWithCli(const std::string& trace, const std::string& args,
                          const std::string& dir);

/// Decodes `pftrace` with `protoc --decode=perfetto.protos.Trace` (test failure when protoc
/// fails or the interning is broken); with `parse_text`, the content comes from protoc's text,
/// else from the binary file. Interned names are resolved.
DecodedExport Decode(const std::string& pftrace, bool parse_text);

/// `napiscope info --json` or `report --format json` output of a trace, parsed.
nlohmann::json CliJson(const std::string& args);

}  // namespace napiscope::testing
