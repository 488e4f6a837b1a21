#include "napiscope/time_window.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "napiscope/format.h"

namespace napiscope {

bool ParseTimeBound(std::string_view text, TimeBound* bound, std::string* error) {
  TimeBound parsed;
  bool ok = false;
  if (text.starts_with('+')) {
    parsed.from_trace_start = true;
    ok = ParseDuration(text.substr(1), &parsed.ns);
  } else {
    ok = ParseTimestamp(text.starts_with('@') ? text.substr(1) : text, &parsed.ns);
  }
  if (!ok) {
    *error = fmt::format("'{}' is not a time: give {}", OneLine(text), kTimeBoundSyntax);
    return false;
  }
  *bound = parsed;
  return true;
}

TimestampNs ResolveTimeBound(const TimeBound& bound, TimestampNs trace_start_ns) {
  if (!bound.from_trace_start) return bound.ns;
  if (bound.ns > std::numeric_limits<TimestampNs>::max() - trace_start_ns) {
    return std::numeric_limits<TimestampNs>::max();
  }
  return trace_start_ns + bound.ns;
}

std::string FormatTraceSpan(TimestampNs first_ns, TimestampNs last_ns) {
  return fmt::format("{} .. {} ({})", FormatTimestamp(first_ns), FormatTimestamp(last_ns),
                     FormatDuration(last_ns - first_ns));
}

std::string CheckWindowInTrace(const AnalysisWindow& window, TimestampNs first_ns,
                               TimestampNs last_ns) {
  constexpr TimestampNs kOpenStart = std::numeric_limits<TimestampNs>::min();
  constexpr TimestampNs kOpenEnd = std::numeric_limits<TimestampNs>::max();
  auto bound = [](TimestampNs ts, TimestampNs open, const char* word) {
    return ts == open ? std::string(word) : FormatTimestamp(ts);
  };
  std::string asked = fmt::format("{} .. {}", bound(window.from_ns, kOpenStart, "start"),
                                  bound(window.to_ns, kOpenEnd, "end"));
  std::string span = FormatTraceSpan(first_ns, last_ns);
  if (window.to_ns < window.from_ns) {
    return fmt::format("the window {} is empty (it ends before it begins); the trace spans {}",
                       asked, span);
  }
  if (window.to_ns < first_ns || window.from_ns > last_ns) {
    return fmt::format("the window {} is outside the trace, which spans {}", asked, span);
  }
  return "";
}

std::string CheckWindowAndCpusInTrace(const AnalysisWindow& window, const std::vector<int>& cpus,
                                      std::string_view cpu_option, const TraceSummary& trace) {
  if (window.restricted() && trace.events > 0) {
    std::string error = CheckWindowInTrace(window, trace.first_ts_ns, trace.last_ts_ns);
    if (!error.empty()) return error;
  }
  if (!cpus.empty()) {
    int highest = *std::max_element(cpus.begin(), cpus.end());
    if (highest >= trace.meta.cpus) {
      return fmt::format("{}{}: the trace has CPUs 0-{}", cpu_option, highest, trace.meta.cpus - 1);
    }
  }
  return "";
}

}  // namespace napiscope
