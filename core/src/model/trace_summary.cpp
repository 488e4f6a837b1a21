#include "napiscope/trace_summary.h"

#include <algorithm>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "napiscope/analysis_requirements.h"

namespace napiscope {

void TraceSummaryBuilder::OnBegin(const TraceContext& context) {
  cpus_ = context.meta.cpus;
  per_cpu_.assign(cpus_, 0);
}

void TraceSummaryBuilder::OnEvent(const Event& event) {
  if (event.kind == EventKind::kMissedEvents) return;
  if (events_ == 0) first_ts_ns_ = event.ts_ns;
  last_ts_ns_ = std::max(last_ts_ns_, event.ts_ns);
  ++events_;
  if (event.cpu >= per_cpu_.size()) per_cpu_.resize(event.cpu + 1, 0);
  ++per_cpu_[event.cpu];
  if (event.name >= per_name_cpu_.size()) per_name_cpu_.resize(event.name + 1);
  std::vector<int64_t>& cpus = per_name_cpu_[event.name];
  if (cpus.size() < per_cpu_.size()) cpus.resize(per_cpu_.size(), 0);
  ++cpus[event.cpu];
}

TraceSummary TraceSummaryBuilder::Finish(const TraceContext& context) const {
  TraceSummary summary;
  summary.meta = context.meta;
  summary.events = events_;
  summary.first_ts_ns = first_ts_ns_;
  summary.last_ts_ns = last_ts_ns_;
  summary.events_per_cpu = per_cpu_;
  size_t cpus = std::max<size_t>(per_cpu_.size(), static_cast<size_t>(context.meta.cpus));
  summary.events_per_cpu.resize(cpus, 0);
  for (size_t name = 0; name < per_name_cpu_.size(); ++name) {
    const std::vector<int64_t>& per_cpu = per_name_cpu_[name];
    if (per_cpu.empty()) continue;
    EventNameCount count;
    count.name = std::string(context.strings.Get(static_cast<StringId>(name)));
    count.per_cpu = per_cpu;
    count.per_cpu.resize(cpus, 0);
    for (int64_t n : per_cpu) count.total += n;
    if (count.total > 0) summary.counts.push_back(std::move(count));
  }
  std::sort(summary.counts.begin(), summary.counts.end(),
            [](const EventNameCount& a, const EventNameCount& b) { return a.name < b.name; });
  summary.missed = context.missed;
  for (size_t cpu = 0; cpu < cpus; ++cpu) {
    CpuMissedSummary row;
    row.cpu = static_cast<int>(cpu);
    for (const MissedEventsMark& mark : context.missed) {
      if (mark.cpu != cpu) continue;
      ++row.gaps;
      row.lost_ns += std::max<TimestampNs>(
          0, mark.ts_ns - (mark.last_before_ns >= 0 ? mark.last_before_ns : first_ts_ns_));
      if (mark.count < 0) {
        row.some_unknown = true;
      } else {
        row.events += mark.count;
      }
    }
    summary.missed_per_cpu.push_back(row);
  }
  summary.tasks = context.tasks.size();
  summary.analyses = CheckAnalyses(summary.counts, context.meta.event_formats);
  return summary;
}

std::vector<AnalysisAvailability> CheckAnalyses(const std::vector<EventNameCount>& counts,
                                                const std::vector<std::string>& event_formats) {
  absl::flat_hash_map<std::string_view, int64_t> by_name;
  for (const EventNameCount& count : counts) by_name[count.name] = count.total;
  // An entry "a|b" is met by either event.
  auto any_of = [](std::string_view entry, auto&& test) {
    for (size_t bar = entry.find('|'); bar != std::string_view::npos; bar = entry.find('|')) {
      if (test(entry.substr(0, bar))) return true;
      entry.remove_prefix(bar + 1);
    }
    return test(entry);
  };
  auto recorded = [&](std::string_view entry) {
    return any_of(entry, [&](std::string_view qualified) {
      auto it = by_name.find(EventPartOf(qualified));
      return it != by_name.end() && it->second > 0;
    });
  };
  auto has_format = [&](std::string_view entry) {
    return any_of(entry, [&](std::string_view qualified) {
      return std::binary_search(event_formats.begin(), event_formats.end(), qualified);
    });
  };
  auto named = [](std::string_view entry) {
    std::string name(entry);
    for (size_t bar = name.find('|'); bar != std::string::npos; bar = name.find('|', bar)) {
      name.replace(bar, 1, " or ");
    }
    return name;
  };
  std::vector<AnalysisAvailability> result;
  for (const AnalysisRequirement& requirement : AnalysisRequirements()) {
    AnalysisAvailability availability;
    availability.id = std::string(requirement.id);
    availability.title = std::string(requirement.title);
    bool all_known = true;  // every missing event's format is in the file
    for (std::string_view event : requirement.required) {
      if (recorded(event)) continue;
      availability.missing_required.push_back(named(event));
      all_known = all_known && has_format(event);
    }
    for (std::string_view event : requirement.optional) {
      if (!recorded(event)) availability.missing_optional.push_back(named(event));
    }
    availability.available = availability.missing_required.empty();
    if (!availability.available) {
      availability.note = absl::StrCat(
          "needs ", absl::StrJoin(availability.missing_required, ", "),
          all_known ? ": the kernel had the event but none was recorded (not enabled?)"
                    : ": not recorded");
    } else if (!availability.missing_optional.empty()) {
      availability.note =
          absl::StrCat("runs; less complete without ", absl::StrJoin(availability.missing_optional, ", "));
    } else {
      availability.note = "runs";
    }
    result.push_back(std::move(availability));
  }
  return result;
}

}  // namespace napiscope
