#include "napiscope/check_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "napiscope/event.h"
#include "napiscope/format.h"
#include "napiscope/json_text.h"
#include "napiscope/suggest.h"

namespace napiscope {

const std::vector<ThresholdKey>& ThresholdKeys() {
  using T = Thresholds;
  static const std::vector<ThresholdKey> kKeys = {
      {"softirq_latency_p99_warning_ns", "softirq-latency: warning when a (cpu, vec)'s p99 exceeds it",
       &T::softirq_latency_p99_warning_ns, &T::softirq_latency_p99_warning_ns_by_vec},
      {"softirq_latency_max_error_ns", "softirq-latency: error when a (cpu, vec)'s max exceeds it",
       &T::softirq_latency_max_error_ns, &T::softirq_latency_max_error_ns_by_vec},
      {"pingpong_min_cross_activations",
       "irq-/napi-thread-pingpong: fewest cross-CPU activations (or CPU changes) that count",
       &T::pingpong_min_cross_activations},
      {"pingpong_cross_share_warning", "irq-/napi-thread-pingpong: warning at this cross-CPU share",
       &T::pingpong_cross_share_warning},
      {"pingpong_cross_share_error", "irq-/napi-thread-pingpong: error at this cross-CPU share",
       &T::pingpong_cross_share_error},
      {"pingpong_cpu_changes_per_s_warning",
       "irq-/napi-thread-pingpong: a thread bounces from this many CPU changes per second",
       &T::pingpong_cpu_changes_per_s_warning},
      {"pingpong_migrations_per_s_warning",
       "irq-/napi-thread-pingpong: a thread also bounces from this many migrations per second",
       &T::pingpong_migrations_per_s_warning},
      {"pingpong_time_off_cpu_share",
       "irq-/napi-thread-pingpong: ... with at least this share of its run time off its main CPU",
       &T::pingpong_time_off_cpu_share},
      {"ksoftirqd_blocked_warning_ns", "ksoftirqd-blocked: warning from this long blocked",
       &T::ksoftirqd_blocked_warning_ns},
      {"ksoftirqd_blocked_error_ns", "ksoftirqd-blocked: error from this long blocked",
       &T::ksoftirqd_blocked_error_ns},
      {"idle_pending_warning_ns",
       "softirq-pending-at-idle: warning when a vector pending at idle waited this long after it",
       &T::idle_pending_warning_ns},
      {"ordering_stall_ns",
       "softirq-ordering-stall: a lower vector holding a wait's CPU this long is a stall",
       &T::ordering_stall_ns},
      {"napi_min_polls", "napi-budget-exhausted: fewest polls of a NAPI instance that count",
       &T::napi_min_polls},
      {"napi_exhausted_share", "napi-budget-exhausted: at this share of polls using the whole budget",
       &T::napi_exhausted_share},
      {"napi_ksoftirqd_share",
       "napi-budget-exhausted: a warning (not info) from this share of polls in ksoftirqd",
       &T::napi_ksoftirqd_share},
      {"rt_wake_latency_warning_ns", "rt-wake-latency: warning when an RT thread's wakeup exceeds it",
       &T::rt_wake_latency_warning_ns},
      {"rt_wake_latency_error_ns", "rt-wake-latency: error when an RT thread's wakeup exceeds it",
       &T::rt_wake_latency_error_ns},
      {"softirq_starvation_warning_ns",
       "softirq-starvation: warning when RT tasks held the CPU this long of a softirq's wait",
       &T::softirq_starvation_warning_ns},
      {"softirq_starvation_error_ns", "softirq-starvation: error from this long",
       &T::softirq_starvation_error_ns},
      {"softirq_thread_starved_rt_share",
       "softirq-thread-starved: share of the CPU RT tasks held while ksoftirqd never ran",
       &T::softirq_thread_starved_rt_share},
  };
  return kKeys;
}

std::string ThresholdValueText(const ThresholdKey& key, const Thresholds& thresholds) {
  if (auto* ns = std::get_if<int64_t Thresholds::*>(&key.field)) {
    int64_t value = thresholds.*(*ns);
    if (!key.key.ends_with("_ns")) return std::to_string(value);
    for (auto [unit, scale] : {std::pair{"s", 1'000'000'000}, {"ms", 1'000'000}, {"us", 1'000}}) {
      if (value != 0 && value % scale == 0) return fmt::format("{}{}", value / scale, unit);
    }
    return fmt::format("{}ns", value);
  }
  return fmt::format("{}", thresholds.*std::get<double Thresholds::*>(key.field));
}

namespace {

using nlohmann::json;

// A key or value the user wrote, in quotes as a message shows it: a long one cut, saying how
// long it was (a hostile config's 950 KB key made a 950 KB error line).
std::string Quoted(std::string_view text) {
  constexpr size_t kShown = 64;
  if (text.size() <= kShown) return fmt::format("'{}'", text);
  return fmt::format("'{}...' ({} characters)", text.substr(0, kShown), text.size());
}

absl::Status BadValue(std::string_view shown_key, std::string_view wants, std::string_view value) {
  return absl::InvalidArgumentError(
      fmt::format("{} wants {}, not {}", Quoted(shown_key), wants, Quoted(value)));
}

bool ParseVector(std::string_view name, uint32_t* vec) {
  for (uint32_t candidate = 0; candidate < kSoftirqVectorCount; ++candidate) {
    if (SoftirqVectorName(candidate) == name) {
      *vec = candidate;
      return true;
    }
  }
  return false;
}

// "; did you mean 'K'?" for an unknown threshold key `key` (after `vector_name.` when given):
// each part that is not known replaced by the closest known one, K written as `shown_key` is
// (with its "thresholds." in a file); "" when a part has none close.
std::string SuggestKey(std::string_view key, std::string_view vector_name,
                       std::string_view shown_key) {
  std::vector<std::string> keys;
  for (const ThresholdKey& candidate : ThresholdKeys()) {
    if (!vector_name.empty() && candidate.by_vec == nullptr && candidate.key == key) {
      return fmt::format("; {} has no per-vector form", key);
    }
    if (vector_name.empty() || candidate.by_vec != nullptr) keys.emplace_back(candidate.key);
  }
  std::string closest_key = std::find(keys.begin(), keys.end(), key) != keys.end()
                                ? std::string(key)
                                : ClosestName(key, keys);
  std::string closest_vector;
  if (!vector_name.empty()) {
    std::vector<std::string> vectors;
    for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
      vectors.emplace_back(SoftirqVectorName(vec));
    }
    uint32_t vec = 0;
    closest_vector = ParseVector(vector_name, &vec) ? std::string(vector_name)
                                                    : ClosestName(vector_name, vectors);
    if (closest_vector.empty()) return "";
  }
  if (closest_key.empty()) return "";
  size_t typed_size = key.size() + (vector_name.empty() ? 0 : vector_name.size() + 1);
  std::string_view prefix = shown_key.substr(0, shown_key.size() - typed_size);
  return fmt::format("; did you mean '{}{}{}{}'?", prefix, closest_vector,
                     vector_name.empty() ? "" : ".", closest_key);
}

// `shown_key` is the key as the user wrote it, for messages ("thresholds.NET_RX.x" in a file).
absl::Status ApplyThreshold(std::string_view key, std::string_view value,
                            std::string_view shown_key, Thresholds* thresholds) {
  std::string_view vector_name;
  if (size_t dot = key.find('.'); dot != std::string_view::npos) {
    vector_name = key.substr(0, dot);
    key = key.substr(dot + 1);
  }
  const ThresholdKey* entry = nullptr;
  for (const ThresholdKey& candidate : ThresholdKeys()) {
    if (candidate.key == key) entry = &candidate;
  }
  uint32_t vec = 0;
  if (entry == nullptr || (!vector_name.empty() &&
                           (entry->by_vec == nullptr || !ParseVector(vector_name, &vec)))) {
    return absl::InvalidArgumentError(
        fmt::format("unknown key {}{}", Quoted(shown_key), SuggestKey(key, vector_name, shown_key)));
  }
  if (auto* double_field = std::get_if<double Thresholds::*>(&entry->field)) {
    double parsed;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(parsed)) {
      return BadValue(shown_key, "a number like 0.25", value);
    }
    if (key.find("_share") != std::string_view::npos && (parsed < 0 || parsed > 1)) {
      return BadValue(shown_key, "a share from 0 to 1", value);
    }
    if (parsed < 0) return BadValue(shown_key, "a number of at least 0", value);
    thresholds->*(*double_field) = parsed;
    return absl::OkStatus();
  }
  int64_t parsed;
  bool is_duration = key.ends_with("_ns");
  bool ok = is_duration ? ParseDuration(value, &parsed)
                        : std::from_chars(value.data(), value.data() + value.size(), parsed).ptr ==
                              value.data() + value.size() && !value.empty();
  if (!ok) {
    return BadValue(shown_key, is_duration ? "a duration like 500us or 1ms" : "an integer", value);
  }
  if (parsed < 0) return BadValue(shown_key, "a count of at least 0", value);  // durations: never
  if (vector_name.empty()) {
    thresholds->*std::get<int64_t Thresholds::*>(entry->field) = parsed;
  } else {
    (thresholds->*(entry->by_vec))[vec] = parsed;
  }
  return absl::OkStatus();
}

// A config value as the text SetThreshold reads; booleans, arrays and tables become JSON text,
// which no threshold parses, so the error shows what was written.
std::string ValueText(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());
  return JsonText(value);
}

absl::Status ApplyConfig(const json& root, CheckConfig* config) {
  for (const auto& [name, value] : root.items()) {
    if (name == "fail_on") {
      Severity severity;
      if (!value.is_string() || !ParseSeverity(value.get<std::string>(), &severity) ||
          severity == Severity::kInfo) {
        return BadValue("fail_on", "\"warning\" or \"error\"", JsonText(value));
      }
      config->fail_on = severity;
    } else if (name == "allow_data_loss") {
      if (!value.is_boolean()) return BadValue("allow_data_loss", "true or false", JsonText(value));
      config->allow_data_loss = value.get<bool>();
    } else if (name == "thresholds") {
      if (!value.is_object()) return BadValue("thresholds", "a table", JsonText(value));
      for (const auto& [key, setting] : value.items()) {
        std::vector<std::pair<std::string, const json*>> leaves;
        if (setting.is_object()) {  // [thresholds.NET_RX]
          for (const auto& [sub_key, sub_value] : setting.items()) {
            leaves.emplace_back(key + "." + sub_key, &sub_value);
          }
        } else {
          leaves.emplace_back(key, &setting);
        }
        for (const auto& [leaf_key, leaf] : leaves) {
          absl::Status status = ApplyThreshold(leaf_key, ValueText(*leaf), "thresholds." + leaf_key,
                                               &config->thresholds);
          if (!status.ok()) return status;
        }
      }
    } else {
      const std::string& key = name;  // a structured binding cannot be captured (clang 14)
      bool is_threshold = std::any_of(ThresholdKeys().begin(), ThresholdKeys().end(),
                                      [&](const ThresholdKey& t) { return t.key == key; });
      return absl::InvalidArgumentError(
          fmt::format("unknown key {}{}", Quoted(name),
                      is_threshold ? "; thresholds go in a [thresholds] table"
                                   : DidYouMean(name, {"fail_on", "allow_data_loss", "thresholds"})));
    }
  }
  return absl::OkStatus();
}

json TomlToJson(const toml::node& node) {
  if (const toml::table* table = node.as_table()) {
    json object = json::object();
    for (const auto& [key, value] : *table) object[std::string(key.str())] = TomlToJson(value);
    return object;
  }
  if (const toml::array* array = node.as_array()) {
    json items = json::array();
    for (const toml::node& item : *array) items.push_back(TomlToJson(item));
    return items;
  }
  if (auto integer = node.value_exact<int64_t>()) return *integer;
  if (auto floating = node.value_exact<double>()) return *floating;
  if (auto text = node.value_exact<std::string>()) return *text;
  if (auto boolean = node.value_exact<bool>()) return *boolean;
  return "a date or time";  // no threshold takes one
}

// Configs are a few lines; these bounds keep a hostile one from taking memory or the stack
// (the JSON and TOML parsers, and the conversion between them, recurse per level).
constexpr int64_t kMaxConfigBytes = 1 << 20;
constexpr int kMaxConfigDepth = 32;

// Reads a regular file of at most kMaxConfigBytes without blocking on a FIFO or device.
absl::Status ReadConfigText(const std::string& path, std::string* content) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return absl::NotFoundError("cannot open the config file");
  }
  struct stat st;
  absl::Status status = absl::OkStatus();
  if (fstat(fd, &st) != 0) {
    status = absl::InternalError(std::strerror(errno));
  } else if (S_ISDIR(st.st_mode)) {
    status = absl::InvalidArgumentError("is a directory, not a config file");
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError("is not a regular file");
  } else if (st.st_size > kMaxConfigBytes) {
    status = absl::InvalidArgumentError(fmt::format(
        "config file of {} bytes (at most {} bytes)", st.st_size, kMaxConfigBytes));
  }
  if (status.ok()) {
    content->resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < content->size()) {
      ssize_t n = read(fd, content->data() + done, content->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the file shrank: read what is there
      done += static_cast<size_t>(n);
    }
    content->resize(done);
  }
  close(fd);
  return status;
}

// The deepest nesting of `text`, strings and comments skipped: brackets and braces, and for
// TOML also the dots of a dotted key (`a.b.c = 1`, `[a.b.c]`), which make a table per part.
int NestingDepth(std::string_view text, bool is_json) {
  auto digit = [&](size_t i) { return i < text.size() && text[i] >= '0' && text[i] <= '9'; };
  int depth = 0, deepest = 0, key_dots = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || (!is_json && c == '\'')) {
      quote = c;
    } else if (!is_json && c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == '=' || c == ',' || c == '\n') {
      key_dots = 0;
    } else if (!is_json && c == '.' && !(i > 0 && digit(i - 1) && digit(i + 1))) {
      deepest = std::max(deepest, depth + ++key_dots);  // not the point of a number
    }
  }
  return deepest;
}

}  // namespace

absl::Status SetThreshold(std::string_view key, std::string_view value, Thresholds* thresholds) {
  return ApplyThreshold(key, value, key, thresholds);
}

bool ParseSeverity(std::string_view text, Severity* severity) {
  for (Severity candidate : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (SeverityName(candidate) == text) {
      *severity = candidate;
      return true;
    }
  }
  return false;
}

absl::Status LoadCheckConfig(const std::string& path, CheckConfig* config) {
  std::string content;
  absl::Status read = ReadConfigText(path, &content);
  if (!read.ok()) {
    return absl::Status(read.code(), fmt::format("{}: {}", path, std::string(read.message())));
  }
  bool is_json = path.ends_with(".json");
  if (int depth = NestingDepth(content, is_json); depth > kMaxConfigDepth) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: nested {} deep (a config nests at most {} tables, arrays or dotted keys)", path,
        depth, kMaxConfigDepth));
  }
  json root;
  if (is_json) {
    root = json::parse(content, nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded() || !root.is_object()) {
      return absl::InvalidArgumentError(fmt::format("{}: not a JSON object", path));
    }
  } else {
    try {
      root = TomlToJson(toml::parse(content, path));
    } catch (const toml::parse_error& error) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: {}", path, error.source().begin.line,
                                                    OneLine(error.description())));
    }
  }
  absl::Status status = ApplyConfig(root, config);
  if (!status.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, OneLine(std::string(status.message()))));
  }
  return absl::OkStatus();
}

}  // namespace napiscope
