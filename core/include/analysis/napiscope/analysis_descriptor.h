// One descriptor per analysis: its typed id, the report key it has in `report --format json`,
// the recorded events it needs, the raw event kinds its sink reads (the pipeline routes only
// those to it), its finding rules and the thresholds they use, and the report sections it
// fills.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "napiscope/analysis_requirements.h"
#include "napiscope/event.h"

namespace napiscope {

/// The analyses of a report, in report order.
enum class AnalysisId : uint8_t {
  kContexts,            ///< execution contexts, softirq/hard-IRQ run times, CPU time
  kSoftirqLatency,      ///< softirq raise-to-entry latency
  kIrqThreadPingpong,   ///< IRQ-thread activations and ping-pong
  kNapiThreadPingpong,  ///< NAPI-kthread and ksoftirqd activations and ping-pong
  kKsoftirqdBlocked,    ///< blocked ksoftirqd chains
  kIdleWithPending,     ///< idle with softirqs pending, ordering stalls
  kNapi,                ///< NAPI polling and budget
  kRtWakeLatency,       ///< wake latency of RT and softirq-serving threads
  kNetPath,             ///< the network path's priorities per NIC IRQ
  kSoftirqThreadStarved,  ///< ksoftirqd that never ran while RT tasks held its CPU
  kCount,               ///< number of analyses
};

struct Report;

/// A report section an analysis fills: its JSON key, and how to empty it.
struct ReportSection {
  std::string_view name;          ///< JSON key of its rows ("softirq_latency")
  void (*clear)(Report* report);  ///< empties the rows and their "<name>_not_listed" count
};

/// A finding rule an analysis's results feed.
struct RuleDescriptor {
  std::string_view id;     ///< Finding::rule ("softirq-latency")
  std::string_view title;  ///< what it checks, for people
};

/// What one analysis is, needs and reads.
struct AnalysisDescriptor {
  AnalysisId id = AnalysisId::kContexts;  ///< typed id
  std::string_view key;                   ///< the report's "id" ("softirq_latency")
  std::string_view title;                 ///< for people ("softirq raise-to-entry latency")
  std::vector<EventNeed> required;        ///< recorded events without which it cannot run
  std::vector<EventNeed> optional;        ///< recorded events that make it more complete
  EventKindMask reads = 0;  ///< raw kinds its sink reads after the tracker and fact producers
  std::vector<std::string_view> thresholds;  ///< threshold keys its finding rules use
  std::vector<RuleDescriptor> rules;         ///< its finding rules, in report order
  std::vector<ReportSection> sections;       ///< report sections it fills (emptied when its
                                             ///< required events were not recorded)
};

/// The descriptors, indexed by AnalysisId.
const std::array<AnalysisDescriptor, static_cast<size_t>(AnalysisId::kCount)>& AnalysisDescriptors();

/// The descriptor of `id`.
const AnalysisDescriptor& DescriptorOf(AnalysisId id);

/// What `trace` says of analysis `id`: whether it ran, the events it missed (null when the
/// summary lists no such analysis).
const AnalysisAvailability* AvailabilityOf(const TraceSummary& trace, AnalysisId id);

/// True when `trace` recorded every event `id` requires, so that the analysis ran on it.
bool AnalysisRan(const TraceSummary& trace, AnalysisId id);

}  // namespace napiscope
