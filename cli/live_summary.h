// The per-interval summary `napiscope live` prints: as text for people, as one JSON object.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/live.h"
#include "napiscope/record.h"
#include "napiscope/report.h"

namespace napiscope::cli {

/// What one interval's summary is made of.
struct LiveSummaryInput {
  const Report* report = nullptr;                    ///< the snapshot
  const std::vector<LiveNapiCounts>* napi = nullptr;  ///< NAPI polls per CPU
  double elapsed_s = 0;
  int64_t events = 0;
  /// At the summary before this one (0 for the first): the rate shown is this interval's.
  double previous_elapsed_s = 0;
  int64_t previous_events = 0;
  std::string instance;
  bool final = false;  ///< the last one, after tracing stopped
  size_t width = 0;    ///< columns of the text (the terminal's); 0: lines as long as they come
  /// The text shows at most this many CPUs, the worst first, and one line for the others; 0:
  /// every CPU, in CPU order (as when there are no more than this).
  size_t shown_cpus = 0;
};

/// Per CPU: NAPI polls and exhausted share, blocked ksoftirqd, softirq raise-to-entry p99/max
/// per vector (wrapped under its column), on a machine with more than `shown_cpus` CPUs only
/// the worst (most blocked ksoftirqd, then longest p99) and a line for the rest; then IRQ/NAPI
/// threads with their cross-CPU share; then the findings, wrapped.
std::string LiveSummaryText(const LiveSummaryInput& input);

/// The same as one "napiscope.live/1" JSON object (docs/record.md).
nlohmann::json LiveSummaryJson(const LiveSummaryInput& input);

/// The running line `napiscope record` keeps on a terminal, as `live` shows its first line:
/// "recording 12.3 s: 1234567 events (100234/s), 0 lost, 45.6 MiB; Ctrl-C stops".
std::string RecordProgressLine(const RecordProgress& progress);

}  // namespace napiscope::cli
