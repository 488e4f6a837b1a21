// Short descriptions of report items for sentences and tables, shared by findings and text.
#pragma once

#include <string>

#include "napiscope/report.h"

namespace napiscope::internal {

/// A kernel priority as people know it: "RT 98" (chrt), "nice -5", "" for nice 0 or unknown.
std::string FormatPriority(int kernel_prio);

/// What held a CPU: "cyclictest (pid 812, RT 98)", "idle", "hard IRQ eth0 (30)",
/// "softirq TIMER".
std::string DescribeHolder(const BlameItem& item);

/// A task as sentences name it: "cyclictest (pid 812, RT 98)", "iperf3 (pid 90)".
std::string DescribeTask(int32_t pid, const std::string& comm, int kernel_prio);

/// "NET_RX" for vectors 0-9, else "vec 12".
std::string VectorLabel(uint32_t vec);

}  // namespace napiscope::internal
