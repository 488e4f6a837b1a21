// Words for report items, shared by the findings, the text report, the JSON `summary` sentences
// and the GUI, so that all of them say the same thing the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "napiscope/blame.h"

namespace napiscope {

/// A kernel priority as people know it: "RT 98" (chrt), "nice -5", "" for nice 0 or unknown.
std::string FormatPriority(int kernel_prio);

/// `count` and `noun`, plural (an "s") but for one: "1 wait", "3 waits".
std::string Counted(int64_t count, std::string_view noun);

/// A task as sentences name it: "cyclictest (pid 812, RT 98)", "iperf3 (pid 90)".
std::string DescribeTask(int32_t pid, const std::string& comm, int kernel_prio);

/// "NET_RX" for vectors 0-9, else "vec 12".
std::string VectorLabel(uint32_t vec);

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
