#include "napiscope/format.h"

#include <cstdlib>

#include <fmt/format.h>

#include "napiscope/event.h"

namespace napiscope {

std::string FormatDuration(int64_t ns) {
  int64_t magnitude = std::llabs(ns);
  if (magnitude < 1000) return fmt::format("{} ns", ns);
  if (magnitude < 1000000) return fmt::format("{:.{}f} us", ns / 1e3, magnitude < 100000 ? 1 : 0);
  if (magnitude < 1000000000) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string FormatTimestamp(int64_t ts_ns) {
  const char* sign = ts_ns < 0 ? "-" : "";
  int64_t magnitude = std::llabs(ts_ns);
  return fmt::format("{}{}.{:06d}", sign, magnitude / 1000000000, (magnitude % 1000000000) / 1000);
}

std::string FormatSoftirqMask(uint32_t mask) {
  std::string names;
  for (uint32_t vec = 0; vec < 32; ++vec) {
    if (!(mask & (1u << vec))) continue;
    if (!names.empty()) names += '|';
    names += SoftirqVectorName(vec);
  }
  return fmt::format("0x{:x} ({})", mask, names.empty() ? "none" : names);
}

}  // namespace napiscope
