#include "napiscope/format.h"

#include <charconv>
#include <cstdlib>
#include <limits>

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

namespace {

bool ParseDigits(std::string_view digits, int64_t* value) {
  if (digits.empty()) return false;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
  return error == std::errc() && end == digits.data() + digits.size() && *value >= 0;
}

}  // namespace

bool ParseTimestamp(std::string_view text, int64_t* ts_ns) {
  constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
  for (const auto& [suffix, scale] : kUnits) {
    if (!text.ends_with(suffix)) continue;
    int64_t value;
    if (!ParseDigits(text.substr(0, text.size() - suffix.size()), &value)) return false;
    if (value > std::numeric_limits<int64_t>::max() / scale) return false;
    *ts_ns = value * scale;
    return true;
  }
  size_t dot = text.find('.');
  int64_t seconds;
  if (!ParseDigits(text.substr(0, dot), &seconds)) return false;
  if (seconds > std::numeric_limits<int64_t>::max() / 1000000000 - 1) return false;
  int64_t fraction_ns = 0;
  if (dot != std::string_view::npos) {
    std::string_view fraction = text.substr(dot + 1);
    if (fraction.size() > 9 || !ParseDigits(fraction, &fraction_ns)) return false;
    for (size_t i = fraction.size(); i < 9; ++i) fraction_ns *= 10;
  }
  *ts_ns = seconds * 1000000000 + fraction_ns;
  return true;
}

bool ParseDuration(std::string_view text, int64_t* ns) {
  constexpr std::pair<std::string_view, int> kUnits[] = {
      {"ns", 0}, {"us", 3}, {"ms", 6}, {"s", 9}};  // unit and its power of ten in ns
  int exponent = 0;
  for (const auto& [suffix, power] : kUnits) {
    if (text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      exponent = power;
      break;
    }
  }
  size_t dot = text.find('.');
  std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (static_cast<int>(fraction.size()) > exponent) return false;  // below a nanosecond
  int64_t whole, part = 0;
  if (!ParseDigits(text.substr(0, dot), &whole)) return false;
  if (!fraction.empty() && !ParseDigits(fraction, &part)) return false;
  if (dot != std::string_view::npos && fraction.empty()) return false;
  int64_t scale = 1;
  for (int i = 0; i < exponent; ++i) scale *= 10;
  for (size_t i = fraction.size(); i < static_cast<size_t>(exponent); ++i) part *= 10;
  if (whole > (std::numeric_limits<int64_t>::max() - part) / scale) return false;
  *ns = whole * scale + part;
  return true;
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

std::string OneLine(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\t') {
      line += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      line += fmt::format("\\x{:02x}", byte);
    } else {
      line += c;
    }
  }
  return line;
}

}  // namespace napiscope
