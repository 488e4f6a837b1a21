// Findings: what an analysis concluded, as one sentence with the numbers that support it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "napiscope/event.h"
#include "napiscope/interrupt_id.h"

namespace napiscope {

/// How bad a finding is; ordered, so `severity >= Severity::kWarning` works.
enum class Severity : uint8_t {
  kInfo,     ///< worth knowing, not a problem by itself
  kWarning,  ///< above a warning threshold
  kError,    ///< above an error threshold
};

/// Stable name of a severity ("info", "warning", "error").
std::string_view SeverityName(Severity severity);

/// One conclusion of an analysis.
struct Finding {
  std::string rule;  ///< stable id of the rule ("softirq-latency")
  Severity severity = Severity::kInfo;
  std::string summary;       ///< one sentence for people, numbers included
  int cpu = -1;              ///< the CPU it is about, -1 when not one CPU
  TimestampNs start_ns = 0;  ///< the worst case it describes begins here
  TimestampNs end_ns = 0;    ///< ... and ends here
  int32_t pid = -1;          ///< the task it is about, -1 when not one task
  InterruptId irq;           ///< the hard IRQ (or x86 vector) it is about; none when not one
  int32_t vec = -1;          ///< the softirq vector it is about, -1 when not one vector
  std::vector<int32_t> other_pids;  ///< further tasks it names (a waker, a blocking task)
  std::vector<int> other_cpus;      ///< further CPUs it names (where to pin a thread first)
  nlohmann::json evidence = nlohmann::json::object();  ///< the numbers, as JSON key/values
};

/// The tasks a finding names for viewers to highlight: its pid, then its other_pids (none < 0).
std::vector<int32_t> TasksNamed(const Finding& finding);

}  // namespace napiscope
