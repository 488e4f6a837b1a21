#include "napiscope/finding_evidence.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "napiscope/event.h"
#include "napiscope/format.h"
#include "napiscope/json_text.h"
#include "napiscope/phrasing.h"

namespace napiscope {
namespace {

// Lists and objects longer than this are cut (a finding's sentence says what matters).
constexpr size_t kMaxListText = 600;
constexpr size_t kMaxOtherText = 400;

// True for a key whose value is in nanoseconds ("max_ns", "max_at_ns").
bool InNanoseconds(const std::string& key) { return key.size() > 3 && key.ends_with("_ns"); }

// "p99_threshold_ns" -> "p99 threshold", "max_at_ns" -> "max at" (the value says its unit).
std::string Label(std::string key) {
  if (InNanoseconds(key)) key.resize(key.size() - 3);
  std::replace(key.begin(), key.end(), '_', ' ');
  return key;
}

// True for a key whose value names an IRQ, task or CPU, which -1 says there is none of.
bool NamesAThing(const std::string& key) {
  for (std::string_view thing : {"irq", "pid", "cpu"}) {
    if (key == thing || key.ends_with("_" + std::string(thing))) return true;
  }
  return false;
}

// `text` cut to kMaxOtherText characters.
std::string Cut(std::string text) {
  return text.size() > kMaxOtherText ? text.substr(0, kMaxOtherText - 3) + "..." : text;
}

std::string Value(const std::string& key, const nlohmann::json& value);

// Each item on a line of its own ("holder iperf3 (pid 10780), time 570 us"), cut when long.
std::string ListValue(const std::string& key, const nlohmann::json& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    const nlohmann::json& item = items[i];
    std::string line;
    if (item.is_object()) {
      for (const auto& [field, field_value] : item.items()) {
        line += (line.empty() ? "" : ", ") + Label(field) + " " + Value(field, field_value);
      }
    } else {
      line = Value(key, item);
    }
    text += (text.empty() ? "" : "\n") + line;
    if (text.size() > kMaxListText && i + 1 < items.size()) return text + "\n...";
  }
  return text;
}

std::string Value(const std::string& key, const nlohmann::json& value) {
  if (value.is_number_integer() && InNanoseconds(key)) {
    int64_t ns = value.get<int64_t>();
    if (ns == -1) return "unknown";  // e.g. events lost before it could be measured
    bool timestamp = key.find("_at") != std::string::npos || key == "raise_ns" ||
                     key == "waking_ns" || key == "start_ns" || key == "end_ns";
    if (timestamp) return FormatTimestamp(ns);
    return ns > -1000 && ns < 1000 ? FormatDuration(ns)
                                   : fmt::format("{} ({} ns)", FormatDuration(ns), ns);
  }
  if (value.is_number() && key.ends_with("_share")) {
    return fmt::format("{:.1f}%", value.get<double>() * 100);
  }
  if (value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX) {
    return std::to_string(value.get<uint64_t>());
  }
  if (value.is_number_integer()) {  // signed or unsigned
    int64_t number = value.get<int64_t>();
    if (number == -1 && NamesAThing(key)) return "none";
    if ((key == "vec" || key.ends_with("_vec")) && number >= 0) {
      return fmt::format("{} ({})", SoftirqVectorName(static_cast<uint32_t>(number)), number);
    }
    if ((key == "prio" || key.ends_with("_prio")) && number >= 0 && number < 140) {
      std::string words = FormatPriority(static_cast<int>(number));  // "" for nice 0
      return words.empty() ? std::to_string(number) : fmt::format("{} ({})", number, words);
    }
    if (key.starts_with("pending_mask") && number >= 0 && number <= UINT32_MAX) {
      return FormatSoftirqMask(static_cast<uint32_t>(number));
    }
    return std::to_string(number);
  }
  if (value.is_number_float()) return fmt::format("{:.4g}", value.get<double>());
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_string()) {
    std::string_view role_words =
        key == "role" ? WakeBlameRoleWords(value.get_ref<const std::string&>()) : "";
    return role_words.empty() ? value.get<std::string>() : std::string(role_words);
  }
  if (value.is_array()) return ListValue(key, value);
  if (value.is_object()) {
    std::string text;
    for (const auto& [field, field_value] : value.items()) {
      text += (text.empty() ? "" : ", ") + field + " " + Value(field, field_value);
    }
    return Cut(text);
  }
  return value.is_null() ? "none" : Cut(JsonText(value, -1));
}

}  // namespace

std::vector<EvidenceLine> EvidenceForPeople(const nlohmann::json& evidence) {
  std::vector<EvidenceLine> lines;
  if (!evidence.is_object()) return lines;
  for (const auto& [key, value] : evidence.items()) {
    lines.push_back({Label(key), Value(key, value)});
  }
  return lines;
}

}  // namespace napiscope
