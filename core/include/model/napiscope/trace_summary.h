// The `info` view of a trace: counts, span, gaps, and which analyses its events allow.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event_sink.h"

namespace napiscope {

/// How often an event name occurs on one CPU.
struct CpuEventCount {
  int cpu = 0;
  int64_t events = 0;
};

/// How often one event name occurs, in total and per CPU.
struct EventNameCount {
  std::string name;
  int64_t total = 0;
  std::vector<CpuEventCount> per_cpu;  ///< the CPUs it occurs on, by CPU number; no zeros
};

/// Missed-event gaps of one CPU.
struct CpuMissedSummary {
  int cpu = 0;
  int64_t gaps = 0;
  int64_t events = 0;          ///< sum of known counts
  bool some_unknown = false;   ///< at least one gap did not say how many events it lost
  int64_t lost_ns = 0;  ///< time inside the gaps (from the trace's first event for a leading gap)
  bool only_leading = false;  ///< every gap came before the CPU's first event
};

/// Whether an analysis can run on this trace, and what it lacks.
struct AnalysisAvailability {
  std::string id;
  std::string title;
  bool available = false;
  std::vector<std::string> missing_required;  ///< "irq:softirq_raise"
  std::vector<std::string> missing_optional;
  std::string note;  ///< one sentence for people ("needs irq:softirq_raise, not recorded")
};

/// Everything `napiscope info` prints.
struct TraceSummary {
  TraceMeta meta;
  int64_t events = 0;  ///< decoded events (missed-event markers not counted)
  TimestampNs first_ts_ns = 0;
  TimestampNs last_ts_ns = 0;
  std::vector<int64_t> events_per_cpu;  ///< by CPU, as many as the trace has
  std::vector<EventNameCount> counts;  ///< sorted by name
  std::vector<MissedEventsMark> missed;
  std::vector<CpuMissedSummary> missed_per_cpu;  ///< by CPU, as many as the trace has
  size_t tasks = 0;
  std::vector<AnalysisAvailability> analyses;  ///< filled by FinishSummary (analysis layer)

  /// The CPUs with events or lost-event gaps, ascending (a trace recorded on some CPUs of a
  /// large machine has the others too, with nothing).
  std::vector<int> CpusWithEvents() const;
};

/// One CPU's events (missed-event markers not counted): how many, the first and the last.
struct CpuEventSpan {
  int64_t events = 0;
  TimestampNs first_ns = 0;  ///< valid when events > 0
  TimestampNs last_ns = 0;   ///< the latest, valid when events > 0
};

/// An EventSink that counts events; Finish() turns the counts into a TraceSummary.
class TraceSummaryBuilder : public EventSink {
 public:
  void OnBegin(const TraceContext& context) override;
  /// Counts `event` (inline: the analysing thread calls it for every event).
  void OnEvent(const Event& event) override {
    if (event.kind == EventKind::kMissedEvents) return;
    if (event.cpu < cpu_spans_.size() && event.name < per_name_cpu_.size()) [[likely]] {
      std::vector<int64_t>& per_cpu = per_name_cpu_[event.name];
      if (event.cpu < per_cpu.size()) [[likely]] {
        ++per_cpu[event.cpu];
        CountOnSpan(cpu_spans_[event.cpu], event.ts_ns);
        return;
      }
    }
    CountGrowing(event);
  }

  /// Builds the summary; call after the load returned OK.
  TraceSummary Finish(const TraceContext& context) const;

  /// Each CPU's events so far, by CPU (the trace's CPU count at least).
  const std::vector<CpuEventSpan>& cpu_spans() const { return cpu_spans_; }

 private:
  static void CountOnSpan(CpuEventSpan& span, TimestampNs ts_ns) {
    if (span.events++ == 0) span.first_ns = ts_ns;
    span.last_ns = std::max(span.last_ns, ts_ns);
  }
  // OnEvent for an event whose CPU or name has no counter yet: makes room, then counts.
  [[gnu::noinline]] void CountGrowing(const Event& event);
  // The names seen, with their counts by CPU, sorted by name.
  std::vector<EventNameCount> NameCounts(const TraceContext& context) const;

  // Counters of names by CPU held in per_name_cpu_ at most: a name's row grows to its highest
  // CPU while they last (8 MiB; 128 names on 8192 CPUs), later ones go to sparse_counts_, so
  // that names x CPU numbers of a crafted file cannot take memory the events did not bring.
  static constexpr size_t kDenseCounterBudget = size_t{1} << 20;

  std::vector<CpuEventSpan> cpu_spans_;
  std::vector<std::vector<int64_t>> per_name_cpu_;  // [name id][cpu], as far as its CPUs go
  size_t dense_counters_ = 0;                       // sum of per_name_cpu_'s row sizes
  absl::flat_hash_map<uint64_t, int64_t> sparse_counts_;  // name id << 32 | cpu -> events
};

}  // namespace napiscope
