// Formatting of times for people: the edge where integer nanoseconds become text.
#pragma once

#include <cstdint>
#include <string>

namespace napiscope {

/// A duration with a readable unit: "850 ns", "12.3 us", "3.02 ms", "1.50 s".
std::string FormatDuration(int64_t ns);

/// A trace timestamp as seconds with microseconds, as ftrace prints it: "1553.278955".
std::string FormatTimestamp(int64_t ts_ns);

/// A softirq pending mask as the kernel prints it ("0x88") and its vector names ("NET_RX|SCHED").
std::string FormatSoftirqMask(uint32_t mask);

}  // namespace napiscope
