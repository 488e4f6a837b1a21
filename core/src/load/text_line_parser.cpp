#include "load/text_line_parser.h"

#include <charconv>
#include <cstring>

namespace napiscope::internal {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
// Powers of ten that scale a fraction of N digits to nanoseconds.
constexpr int64_t kFractionScale[10] = {0,      100'000'000, 10'000'000, 1'000'000, 100'000,
                                        10'000, 1'000,       100,        10,        1};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string_view TrimLeft(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

bool ParseUnsigned(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size() && *value >= 0;
}

// Finds the "TIMESTAMP:" token that ends the line's prefix. Returns the offset of the colon
// and sets `start` to where the timestamp begins; npos when there is none.
size_t FindTimestampColon(std::string_view line, size_t* start) {
  size_t colon = 0;
  while ((colon = line.find(':', colon)) != std::string_view::npos) {
    size_t at = colon++;
    if (at + 1 < line.size() && line[at + 1] != ' ' && line[at + 1] != '\t') continue;
    size_t begin = at;
    while (begin > 0 && IsDigit(line[begin - 1])) --begin;
    if (begin == at) continue;
    if (begin > 0 && line[begin - 1] == '.') {
      size_t fraction = begin;
      begin = fraction - 1;
      while (begin > 0 && IsDigit(line[begin - 1])) --begin;
      if (begin == fraction - 1) continue;
    }
    // A timestamp follows the prefix columns, so something and a space come before it.
    if (begin < 2 || (line[begin - 1] != ' ' && line[begin - 1] != '\t')) continue;
    *start = begin;
    return at;
  }
  return std::string_view::npos;
}

// Finds the kernel latency-format timestamp "  123us+: " (microseconds since the buffer's
// start, then a delay mark: one of " +!#*@$"). Returns the offset of the colon and sets
// `start` and `digits_end`; npos when there is none.
size_t FindLatencyTimestamp(std::string_view line, size_t* start, size_t* digits_end) {
  size_t us = 0;
  while ((us = line.find("us", us)) != std::string_view::npos) {
    size_t at = us;
    us += 2;
    size_t begin = at;
    while (begin > 0 && IsDigit(line[begin - 1])) --begin;
    if (begin == at || begin < 2 || (line[begin - 1] != ' ' && line[begin - 1] != '\t')) continue;
    size_t colon = at + 2;
    if (colon < line.size() && std::strchr(" +!#*@$", line[colon]) != nullptr &&
        line[colon] != '\0') {
      ++colon;
    }
    if (colon >= line.size() || line[colon] != ':') continue;
    if (colon + 1 < line.size() && line[colon + 1] != ' ' && line[colon + 1] != '\t') continue;
    *start = begin;
    *digits_end = at;
    return colon;
  }
  return std::string_view::npos;
}

// "[001]" -> 1.
bool ParseBracketedCpu(std::string_view token, int32_t* cpu) {
  if (token.size() < 3 || token.front() != '[' || token.back() != ']') return false;
  int64_t value = 0;
  if (!ParseUnsigned(token.substr(1, token.size() - 2), &value) || value > 0xffff) return false;
  *cpu = static_cast<int32_t>(value);
  return true;
}

// Splits off the last space-separated token of `text` (already trimmed on the right).
std::string_view PopLastToken(std::string_view* text) {
  size_t space = text->find_last_of(" \t");
  std::string_view token = space == std::string_view::npos ? *text : text->substr(space + 1);
  *text = TrimRight(space == std::string_view::npos ? std::string_view() : text->substr(0, space));
  return token;
}

// Parses the CPU and irq-info columns at the right end of the prefix, in any of the layouts:
// "[001]", "[001] d.h1." (kernel) and "1d.h1." (trace-cmd -l, CPU and flags glued).
bool ParseCpuAndFlags(std::string_view* prefix, TextEventLine* out) {
  std::string_view token = PopLastToken(prefix);
  if (ParseBracketedCpu(token, &out->cpu)) return true;
  if (LooksLikeFlagsColumn(token)) {
    std::string_view cpu_token = PopLastToken(prefix);
    if (!ParseBracketedCpu(cpu_token, &out->cpu)) return false;
    out->flags = token;
    out->flags_dialect = FlagsDialect::kKernel;
    return true;
  }
  size_t digits = 0;
  while (digits < token.size() && IsDigit(token[digits])) ++digits;
  if (digits == 0 || !LooksLikeFlagsColumn(token.substr(digits))) return false;
  int64_t cpu = 0;
  if (!ParseUnsigned(token.substr(0, digits), &cpu) || cpu > 0xffff) return false;
  out->cpu = static_cast<int32_t>(cpu);
  out->flags = token.substr(digits);
  out->flags_dialect = FlagsDialect::kTraceCmd;
  out->comm_truncated = true;
  return true;
}

// perf script's "comm pid" or "comm pid/tid" (-F pid,tid): the last token is the task's.
bool ParsePerfTaskColumns(std::string_view prefix, TextEventLine* out) {
  std::string_view ids = PopLastToken(&prefix);
  if (prefix.empty()) return false;
  size_t slash = ids.find('/');
  int64_t pid = 0, tgid = -1;
  if (slash != std::string_view::npos &&
      (!ParseUnsigned(ids.substr(0, slash), &tgid) || tgid > INT32_MAX)) {
    return false;
  }
  std::string_view tid = slash == std::string_view::npos ? ids : ids.substr(slash + 1);
  if (!ParseUnsigned(tid, &pid) || pid > INT32_MAX) return false;
  out->pid = static_cast<int32_t>(pid);
  out->tgid = static_cast<int32_t>(tgid);
  out->comm = TrimLeft(prefix);
  out->perf_layout = true;
  return true;
}

// Parses "comm-pid" with an optional "(tgid)" after it, or perf script's "comm pid".
bool ParseTaskColumns(std::string_view prefix, TextEventLine* out) {
  // trace-cmd report prints an instance buffer's events after its name, from the first column
  // ("net:           <idle>-0"); a task's comm is printed right-aligned, after spaces.
  if (size_t end = prefix.find(": "); end != std::string_view::npos && end > 0 &&
                                      prefix.substr(0, end).find(' ') == std::string_view::npos &&
                                      !TrimLeft(prefix.substr(end + 1)).empty()) {
    out->buffer = prefix.substr(0, end);
    prefix = prefix.substr(end + 1);
  }
  if (!prefix.empty() && prefix.back() == ')') {
    size_t open = prefix.rfind('(');
    if (open == std::string_view::npos) return false;
    std::string_view tgid = TrimSpaces(prefix.substr(open + 1, prefix.size() - open - 2));
    int64_t value = -1;
    if (!tgid.empty() && tgid.find_first_not_of('-') != std::string_view::npos) {
      if (!ParseUnsigned(tgid, &value) || value > INT32_MAX) return false;
    }
    out->tgid = static_cast<int32_t>(value);
    prefix = TrimRight(prefix.substr(0, open));
  }
  size_t dash = prefix.rfind('-');
  int64_t pid = 0;
  if (dash == std::string_view::npos || dash == 0 ||
      !ParseUnsigned(prefix.substr(dash + 1), &pid) || pid > INT32_MAX) {
    return out->tgid == -1 && out->flags.empty() && ParsePerfTaskColumns(prefix, out);
  }
  out->pid = static_cast<int32_t>(pid);
  out->comm = TrimLeft(prefix.substr(0, dash));
  if (out->comm_truncated) out->comm_truncated = out->comm.size() >= 8;
  return true;
}

}  // namespace

std::string_view TrimSpaces(std::string_view text) { return TrimLeft(TrimRight(text)); }

bool ParseInt(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

bool ParseTimestampNs(std::string_view text, TimestampNs* ts_ns, TimestampNs* resolution_ns) {
  size_t dot = text.find('.');
  int64_t seconds = 0;
  if (resolution_ns != nullptr) *resolution_ns = 1;
  if (dot == std::string_view::npos) return false;
  std::string_view fraction = text.substr(dot + 1);
  int64_t fraction_value = 0;
  if (!ParseUnsigned(text.substr(0, dot), &seconds) || fraction.empty() || fraction.size() > 9 ||
      !ParseUnsigned(fraction, &fraction_value) || seconds > INT64_MAX / kNsPerSecond - 1) {
    return false;
  }
  *ts_ns = seconds * kNsPerSecond + fraction_value * kFractionScale[fraction.size()];
  if (resolution_ns != nullptr) *resolution_ns = kFractionScale[fraction.size()];
  return true;
}

namespace {

// Splits what follows the timestamp into the event name and its fields.
bool ParseNameAndFields(std::string_view rest, TextEventLine* out) {
  rest = TrimLeft(rest);
  // trace-cmd report --ts-diff: "(+472) " after the timestamp, the time since the line before.
  if (rest.starts_with("(+")) {
    size_t close = rest.find(')');
    int64_t diff = 0;
    if (close == std::string_view::npos || !ParseUnsigned(rest.substr(2, close - 2), &diff)) {
      return false;
    }
    rest = TrimLeft(rest.substr(close + 1));
  }
  if (rest.starts_with('<') && TrimRight(rest).ends_with("stack trace>")) {
    out->name = TrimRight(rest);  // "<stack trace>", "<user stack trace>"
    return true;
  }
  // perf script: "PERF_RECORD_LOST lost 224" (--show-lost-events).
  if (rest.starts_with(kPerfLostRecord)) {
    out->name = kPerfLostRecord;
    out->fields = TrimSpaces(rest.substr(kPerfLostRecord.size()));
    return true;
  }
  size_t name_end = rest.find_first_of(": \t");
  // perf script names the system too: "irq:softirq_raise: vec=3".
  if (name_end != std::string_view::npos && rest[name_end] == ':' && name_end + 1 < rest.size() &&
      rest[name_end + 1] != ' ' && rest[name_end + 1] != '\t') {
    size_t system_end = name_end;
    name_end = rest.find_first_of(": \t", system_end + 1);
    if (name_end == system_end + 1 || name_end == std::string_view::npos || rest[name_end] != ':') {
      return false;
    }
    out->name = rest.substr(system_end + 1, name_end - system_end - 1);
    out->perf_layout = true;
    out->fields = TrimSpaces(rest.substr(name_end + 1));
    return true;
  }
  if (name_end != 0 && name_end != std::string_view::npos && rest[name_end] == ':') {
    out->name = rest.substr(0, name_end);
    out->fields = TrimSpaces(rest.substr(name_end + 1));
    return true;
  }
  // The function tracer: "do_syscall_64 <-entry_SYSCALL_64_after_hwframe".
  if (name_end != 0 && name_end != std::string_view::npos &&
      rest.substr(name_end).starts_with(" <-")) {
    out->name = "function";
    out->fields = TrimSpaces(rest);
    return true;
  }
  return false;
}

}  // namespace

bool ParseEventLine(std::string_view line, TextEventLine* out) {
  *out = TextEventLine();
  size_t ts_start = 0;
  size_t colon = FindTimestampColon(line, &ts_start);
  std::string_view prefix;
  std::string_view ts_text;
  if (colon != std::string_view::npos) ts_text = line.substr(ts_start, colon - ts_start);
  // The kernel prints a clock that does not count nanoseconds as a bare integer.
  out->ts_is_count = ts_text.find('.') == std::string_view::npos;
  if (colon != std::string_view::npos &&
      (out->ts_is_count ? ParseUnsigned(ts_text, &out->ts_ns)
                        : ParseTimestampNs(ts_text, &out->ts_ns, &out->ts_resolution_ns)) &&
      ParseNameAndFields(line.substr(colon + 1), out)) {
    prefix = TrimRight(line.substr(0, ts_start));
    if (ParseCpuAndFlags(&prefix, out) && ParseTaskColumns(prefix, out)) return true;
  }
  // The kernel's latency-format: "  <idle>-0       1d..2.   12us+: sched_switch: ...".
  size_t digits_end = 0;
  *out = TextEventLine();
  colon = FindLatencyTimestamp(line, &ts_start, &digits_end);
  int64_t us = 0;
  if (colon == std::string_view::npos ||
      !ParseUnsigned(line.substr(ts_start, digits_end - ts_start), &us) ||
      us > INT64_MAX / 1000 || !ParseNameAndFields(line.substr(colon + 1), out)) {
    return false;
  }
  out->ts_ns = us * 1000;
  out->ts_resolution_ns = 1000;
  out->latency_us = true;
  prefix = TrimRight(line.substr(0, ts_start));
  if (!ParseCpuAndFlags(&prefix, out)) return false;
  out->flags_dialect = FlagsDialect::kKernel;  // the kernel's legend, with the CPU glued on
  return ParseTaskColumns(prefix, out);
}

std::string_view WhyNotAnEventLine(std::string_view line) {
  std::string_view trimmed = TrimSpaces(line);
  // options/raw, hex and bin print "PID CPU TS type: ID" (in decimal, hex or binary) and then
  // the fields as numbers.
  size_t type = trimmed.rfind(" type: ");
  int64_t id = 0;
  if (type != std::string_view::npos && ParseUnsigned(trimmed.substr(type + 7), &id)) {
    return "the kernel's raw, hex or bin output (options/raw, hex or bin), which napiscope does "
           "not read: turn the option off";
  }
  // options/context-info off leaves "sched_switch: prev_comm=...": no task, CPU or time.
  size_t colon = trimmed.find(": ");
  if (colon != std::string_view::npos &&
      EventKindFromName(trimmed.substr(0, colon)) != EventKind::kOther) {
    return "an event without its task, CPU and time (options/context-info off): turn it on";
  }
  return "not an event line";
}

bool IsStackFrameLine(std::string_view line) { return TrimLeft(line).starts_with("=>"); }

bool ParseMissedLine(std::string_view line, TextMissedLine* out) {
  line = TrimSpaces(line);
  std::string_view buffer;
  if (size_t end = line.find(": "); end != std::string_view::npos && end > 0 &&
                                    line.substr(0, end).find(' ') == std::string_view::npos) {
    buffer = line.substr(0, end);
    line = TrimLeft(line.substr(end + 1));
  }
  if (line.size() < 8 || line.compare(0, 4, "CPU:") != 0 || line.back() != ']') return false;
  size_t bracket = line.find(" [");
  if (bracket == std::string_view::npos) return false;
  int64_t cpu = 0;
  if (!ParseUnsigned(line.substr(4, bracket - 4), &cpu) || cpu > 0xffff) return false;
  std::string_view inside = line.substr(bracket + 2, line.size() - bracket - 3);
  std::string_view number;
  if (inside == "EVENTS DROPPED") {
    number = "";
  } else if (inside.ends_with(" EVENTS DROPPED")) {
    number = inside.substr(0, inside.size() - 15);
  } else if (inside == "LOST EVENTS") {
    number = "";
  } else if (inside.starts_with("LOST ") && inside.ends_with(" EVENTS")) {
    number = inside.substr(5, inside.size() - 12);
  } else {
    return false;
  }
  out->cpu = static_cast<int32_t>(cpu);
  out->buffer = buffer;
  out->count = -1;
  if (!number.empty() && !ParseUnsigned(number, &out->count)) return false;
  return true;
}

}  // namespace napiscope::internal
