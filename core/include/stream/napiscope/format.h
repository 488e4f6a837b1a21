// Formatting of times for people: the edge where integer nanoseconds become text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace napiscope {

/// A duration with a readable unit: "850 ns", "12.3 us", "3.02 ms", "1.50 s".
std::string FormatDuration(int64_t ns);

/// A trace timestamp as seconds with microseconds, as ftrace prints it: "1553.278955".
std::string FormatTimestamp(int64_t ts_ns);

/// Parses a trace timestamp as FormatTimestamp and trace-cmd print it, seconds with up to 9
/// decimals ("1553.278955"), or an integer with a unit ("1553278955000ns", "1553278955us",
/// "1553278ms", "1553s"); false when it is neither.
bool ParseTimestamp(std::string_view text, int64_t* ts_ns);

/// Parses a duration: integer nanoseconds ("850") or a number with a unit ns/us/ms/s ("12.5us",
/// "3ms", "1.5s"); false when it is neither or not a whole number of nanoseconds.
bool ParseDuration(std::string_view text, int64_t* ns);

/// A softirq pending mask as the kernel prints it ("0x88") and its vector names ("NET_RX|SCHED").
std::string FormatSoftirqMask(uint32_t mask);

/// `text` with control characters shown as \n, \t or \xNN, so that a message quoting a
/// file's bytes stays one line.
std::string OneLine(std::string_view text);

}  // namespace napiscope
