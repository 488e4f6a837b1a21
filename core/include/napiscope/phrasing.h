// Words for report items, shared by the text report, the JSON `summary` sentences and the GUI,
// so that all three say the same thing the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "napiscope/blame.h"

namespace napiscope {

/// What held a CPU: "cyclictest (pid 812, RT 98)", "idle", "hard IRQ eth0 (30)",
/// "softirq TIMER".
std::string DescribeBlameHolder(const BlameItem& item);

/// A WakeBlameRole id in plain words, "" when the holder's own name says it (hardirq, softirq,
/// idle): "lower_prio" -> "a lower-priority task that could not be preempted".
std::string_view WakeBlameRoleWords(std::string_view role);

/// One holder of a woken thread's wait with its time, share of `total_ns` and role in words:
/// "iperf3 (pid 10780) 570 us (49%, a lower-priority task that could not be preempted)",
/// "softirq NET_RX 250 us (21%)"; without the share when `total_ns` is 0.
std::string DescribeWakeHolder(const BlameItem& item, int64_t total_ns, int16_t woken_prio);

}  // namespace napiscope
