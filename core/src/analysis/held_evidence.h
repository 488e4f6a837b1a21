// The holders a finding's sentence names, as evidence a test (or a reader) can check against
// the trace: on a CPU, within an interval, a task or a softirq vector held it at least so long.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "napiscope/blame.h"
#include "napiscope/event.h"

namespace napiscope::internal {

/// {"cpu", "from_ns", "to_ns", "kind": "task", "pid", "time_ns"}: task `pid` held `cpu` at
/// least `time_ns` within [from_ns, to_ns) (docs/report-schema.md, "evidence.holders").
nlohmann::json HeldByTask(int cpu, TimestampNs from_ns, TimestampNs to_ns, int32_t pid,
                          int64_t time_ns);

/// The same for softirq vector `vec` ("kind": "softirq", "vec").
nlohmann::json HeldBySoftirq(int cpu, TimestampNs from_ns, TimestampNs to_ns, uint32_t vec,
                             int64_t time_ns);

/// The same for `item` of a wait's blame (tasks, softirqs and hard IRQs: "kind": "hardirq",
/// "irq", "x86_vector"); null for what it cannot name.
nlohmann::json HeldByBlameItem(int cpu, TimestampNs from_ns, TimestampNs to_ns,
                               const BlameItem& item);

}  // namespace napiscope::internal
