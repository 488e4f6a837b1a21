#include "load/text_fields.h"

#include <array>
#include <charconv>

#include "load/text_line_parser.h"

namespace napiscope::internal {
namespace {

// Letters of libtraceevent's sched_switch plugin, one per raw prev_state bit (bit 0 first).
// It predates the 4.14 state renumbering, so bit 4 prints 'Z' for what the kernel calls X.
constexpr std::string_view kPluginStateLetters = "SDTtZXxW";

// Finds "key" (which ends in '=' or ':') at the start of `text` or after a space.
size_t FindKey(std::string_view text, std::string_view key, size_t from) {
  size_t at = from;
  while ((at = text.find(key, at)) != std::string_view::npos) {
    if (at == 0 || text[at - 1] == ' ') return at;
    ++at;
  }
  return std::string_view::npos;
}

// The values of a "k1=v1 k2=v2 ..." print format, keys given in print order. A value runs to
// the space before the next key, so comms with spaces survive; interleaved keys napiscope does
// not read ("success=1") are left inside the value before them and cut by FirstWord.
template <size_t N>
bool SplitKeyValues(std::string_view text, const std::array<std::string_view, N>& keys,
                    std::array<std::string_view, N>* values) {
  std::array<size_t, N + 1> starts{};
  size_t from = 0;
  for (size_t i = 0; i < N; ++i) {
    size_t at = FindKey(text, keys[i], from);
    if (at == std::string_view::npos) return false;
    starts[i] = at;
    from = at + keys[i].size();
  }
  starts[N] = text.size() + 1;
  for (size_t i = 0; i < N; ++i) {
    size_t begin = starts[i] + keys[i].size();
    (*values)[i] = text.substr(begin, starts[i + 1] - 1 - begin);
  }
  return true;
}

std::string_view FirstWord(std::string_view text) { return text.substr(0, text.find(' ')); }

bool Int32Of(std::string_view text, int32_t* value) {
  int64_t wide = 0;
  if (!ParseInt(FirstWord(text), &wide) || wide < INT32_MIN || wide > INT32_MAX) return false;
  *value = static_cast<int32_t>(wide);
  return true;
}

bool Int16Of(std::string_view text, int16_t* value) {
  int32_t wide = 0;
  if (!Int32Of(text, &wide) || wide < INT16_MIN || wide > INT16_MAX) return false;
  *value = static_cast<int16_t>(wide);
  return true;
}

// Pointers print as 0x-prefixed hex (libtraceevent) or bare hashed hex (the kernel's %p).
uint64_t PointerOf(std::string_view text) {
  text = FirstWord(text);
  if (text.starts_with("0x")) text.remove_prefix(2);
  uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return value;
}

bool ParsePluginState(std::string_view letters, uint16_t* state) {
  if (letters.empty()) return false;
  uint16_t value = 0;
  for (char c : letters) {
    if (c == 'R' || c == '|') continue;
    if (c == '+') {
      value |= kStatePreempted;
      continue;
    }
    size_t bit = kPluginStateLetters.find(c);
    value |= bit == std::string_view::npos ? static_cast<uint16_t>(kStateUnknown)
                                           : static_cast<uint16_t>(1u << bit);
  }
  *state = value;
  return true;
}

// prev_state as letters ("S", "R+", "D|K") or, in `trace-cmd report -R`, the raw number the
// kernel stored (kept as the trace.dat decoder keeps it: its low 16 bits).
bool ParsePrevState(std::string_view text, uint16_t* state) {
  if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
    int base = 10;
    if (text.starts_with("0x")) {
      text.remove_prefix(2);
      base = 16;
    }
    uint64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error != std::errc() || end != text.data() + text.size()) return false;
    *state = static_cast<uint16_t>(value);
    return true;
  }
  return ParseTaskStateLetters(text, state);
}

// "comm:pid [prio]" as trace-cmd's sched plugin prints a task.
bool ParsePluginTask(std::string_view text, StringId* comm, int32_t* pid, int16_t* prio,
                     StringTable& strings) {
  text = TrimSpaces(text);
  size_t open = text.rfind(" [");
  if (open == std::string_view::npos || text.back() != ']') return false;
  if (!Int16Of(text.substr(open + 2, text.size() - open - 3), prio)) return false;
  text = text.substr(0, open);
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || !Int32Of(text.substr(colon + 1), pid)) return false;
  *comm = strings.Intern(text.substr(0, colon));
  return true;
}

bool ParseSchedSwitch(std::string_view text, StringTable& strings, SchedSwitchFields* f) {
  if (FindKey(text, "prev_comm=", 0) == 0) {
    static constexpr std::array<std::string_view, 7> kKeys = {
        "prev_comm=", "prev_pid=", "prev_prio=", "prev_state=",
        "next_comm=", "next_pid=", "next_prio="};
    std::array<std::string_view, 7> v;
    if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[1], &f->prev_pid) ||
        !Int16Of(v[2], &f->prev_prio) || !ParsePrevState(FirstWord(v[3]), &f->prev_state) ||
        !Int32Of(v[5], &f->next_pid) || !Int16Of(v[6], &f->next_prio)) {
      return false;
    }
    f->prev_comm = strings.Intern(v[0]);
    f->next_comm = strings.Intern(v[4]);
    return true;
  }
  // trace-cmd plugin: "prev:pid [prio] S ==> next:pid [prio]".
  size_t arrow = text.find(" ==> ");
  if (arrow == std::string_view::npos) return false;
  std::string_view prev = TrimSpaces(text.substr(0, arrow));
  size_t space = prev.rfind(' ');
  if (space == std::string_view::npos ||
      !ParsePluginState(prev.substr(space + 1), &f->prev_state)) {
    return false;
  }
  return ParsePluginTask(prev.substr(0, space), &f->prev_comm, &f->prev_pid, &f->prev_prio,
                         strings) &&
         ParsePluginTask(text.substr(arrow + 5), &f->next_comm, &f->next_pid, &f->next_prio,
                         strings);
}

bool ParseWake(std::string_view text, StringTable& strings, WakeFields* f) {
  if (FindKey(text, "comm=", 0) == 0) {
    static constexpr std::array<std::string_view, 4> kKeys = {
        "comm=", "pid=", "prio=", "target_cpu="};
    std::array<std::string_view, 4> v;
    if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[1], &f->pid) || !Int16Of(v[2], &f->prio) ||
        !Int16Of(v[3], &f->target_cpu)) {
      return false;
    }
    f->comm = strings.Intern(v[0]);
    return true;
  }
  // trace-cmd plugin: "comm:pid [prio] [success=1] CPU:003".
  f->target_cpu = -1;
  size_t cpu = text.rfind(" CPU:");
  if (cpu != std::string_view::npos) {
    if (!Int16Of(text.substr(cpu + 5), &f->target_cpu)) return false;
    text = text.substr(0, cpu);
  }
  size_t success = text.rfind(" success=");
  if (success != std::string_view::npos) text = text.substr(0, success);
  return ParsePluginTask(text, &f->comm, &f->pid, &f->prio, strings);
}

bool ParseMigrate(std::string_view text, StringTable& strings, MigrateFields* f) {
  static constexpr std::array<std::string_view, 5> kKeys = {
      "comm=", "pid=", "prio=", "orig_cpu=", "dest_cpu="};
  std::array<std::string_view, 5> v;
  if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[1], &f->pid) || !Int16Of(v[2], &f->prio) ||
      !Int16Of(v[3], &f->orig_cpu) || !Int16Of(v[4], &f->dest_cpu)) {
    return false;
  }
  f->comm = strings.Intern(v[0]);
  return true;
}

bool ParsePiSetprio(std::string_view text, StringTable& strings, PiSetprioFields* f) {
  static constexpr std::array<std::string_view, 4> kKeys = {
      "comm=", "pid=", "oldprio=", "newprio="};
  std::array<std::string_view, 4> v;
  if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[1], &f->pid) || !Int16Of(v[2], &f->old_prio) ||
      !Int16Of(v[3], &f->new_prio)) {
    return false;
  }
  f->comm = strings.Intern(v[0]);
  return true;
}

// The print format says "comm= pid="; the raw fields (-R) are "parent_comm= parent_pid=".
bool ParseFork(std::string_view text, StringTable& strings, ForkFields* f) {
  static constexpr std::array<std::string_view, 4> kKeys = {
      "comm=", "pid=", "child_comm=", "child_pid="};
  static constexpr std::array<std::string_view, 4> kRawKeys = {
      "parent_comm=", "parent_pid=", "child_comm=", "child_pid="};
  std::array<std::string_view, 4> v;
  const bool raw = FindKey(text, kRawKeys[0], 0) == 0;
  if (!SplitKeyValues(text, raw ? kRawKeys : kKeys, &v) || !Int32Of(v[1], &f->parent_pid) ||
      !Int32Of(v[3], &f->child_pid)) {
    return false;
  }
  f->child_comm = strings.Intern(v[2]);
  return true;
}

bool ParseExit(std::string_view text, StringTable& strings, ExitFields* f) {
  static constexpr std::array<std::string_view, 3> kKeys = {"comm=", "pid=", "prio="};
  std::array<std::string_view, 3> v;
  if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[1], &f->pid) || !Int16Of(v[2], &f->prio)) {
    return false;
  }
  f->comm = strings.Intern(v[0]);
  return true;
}

bool ParseIrqEntry(std::string_view text, StringTable& strings, IrqFields* f) {
  static constexpr std::array<std::string_view, 2> kKeys = {"irq=", "name="};
  std::array<std::string_view, 2> v;
  if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[0], &f->irq)) return false;
  f->ret = 0;
  f->handler = strings.Intern(v[1]);
  return true;
}

bool ParseIrqExit(std::string_view text, IrqFields* f) {
  static constexpr std::array<std::string_view, 2> kKeys = {"irq=", "ret="};
  std::array<std::string_view, 2> v;
  if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[0], &f->irq)) return false;
  // The print format only says whether ret was non-zero.
  std::string_view ret = FirstWord(v[1]);
  f->handler = 0;
  if (ret == "handled") {
    f->ret = 1;
  } else if (ret == "unhandled") {
    f->ret = 0;
  } else if (!Int32Of(ret, &f->ret)) {
    return false;
  }
  return true;
}

bool ParseSoftirq(std::string_view text, SoftirqFields* f) {
  size_t at = FindKey(text, "vec=", 0);
  int32_t vec = 0;
  if (at == std::string_view::npos || !Int32Of(text.substr(at + 4), &vec) || vec < 0) return false;
  f->vec = static_cast<uint32_t>(vec);
  return true;
}

// The raw fields (-R): "napi=%p dev_name=%s work=%d budget=%d".
bool ParseRawNapiPoll(std::string_view text, StringTable& strings, NapiPollFields* f) {
  static constexpr std::array<std::string_view, 4> kKeys = {"napi=", "dev_name=", "work=",
                                                            "budget="};
  std::array<std::string_view, 4> v;
  if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[2], &f->work) ||
      !Int32Of(v[3], &f->budget)) {
    return false;
  }
  f->napi = PointerOf(v[0]);
  f->dev = strings.Intern(v[1]);
  return true;
}

// "napi poll on napi struct %p for device %s work %d budget %d"
bool ParseNapiPoll(std::string_view text, StringTable& strings, NapiPollFields* f) {
  if (FindKey(text, "napi=", 0) == 0) return ParseRawNapiPoll(text, strings, f);
  static constexpr std::string_view kStruct = "napi struct ";
  static constexpr std::string_view kDevice = " for device ";
  size_t napi = text.find(kStruct);
  size_t device = text.find(kDevice);
  size_t work = text.rfind(" work ");
  size_t budget = text.rfind(" budget ");
  if (napi == std::string_view::npos || device == std::string_view::npos ||
      work == std::string_view::npos || budget == std::string_view::npos || work < device ||
      budget < work) {
    return false;
  }
  size_t dev_begin = device + kDevice.size();
  if (!Int32Of(text.substr(work + 6), &f->work) || !Int32Of(text.substr(budget + 8), &f->budget)) {
    return false;
  }
  f->napi = PointerOf(text.substr(napi + kStruct.size()));
  f->dev = strings.Intern(text.substr(dev_begin, work - dev_begin));
  return true;
}

// "dev=%s skbaddr=%p len=%u" and, for net_dev_xmit, " rc=%d"; the raw fields (-R) are
// "skbaddr=%p len=%u [rc=%d] name=%s".
bool ParseNet(std::string_view text, StringTable& strings, NetFields* f) {
  static constexpr std::array<std::string_view, 3> kKeys = {"dev=", "skbaddr=", "len="};
  std::array<std::string_view, 3> v;
  int32_t len = 0;
  if (FindKey(text, "skbaddr=", 0) == 0) {
    size_t name = FindKey(text, "name=", 0);
    size_t len_at = FindKey(text, "len=", 0);
    if (name == std::string_view::npos || len_at == std::string_view::npos ||
        !Int32Of(text.substr(len_at + 4), &len)) {
      return false;
    }
    f->dev = strings.Intern(text.substr(name + 5));
  } else {
    if (!SplitKeyValues(text, kKeys, &v) || !Int32Of(v[2], &len)) return false;
    f->dev = strings.Intern(v[0]);
  }
  f->len = static_cast<uint32_t>(len);
  f->rc = 0;
  size_t rc = FindKey(text, "rc=", 0);
  if (rc != std::string_view::npos && !Int32Of(text.substr(rc + 3), &f->rc)) return false;
  return true;
}

// x86 irq_vectors events: "vector=236"; the handler is the vector's name, as the decoder sets.
bool ParseIrqVector(std::string_view text, StringTable& strings, StringId name, IrqFields* f) {
  size_t at = FindKey(text, "vector=", 0);
  if (at == std::string_view::npos || !Int32Of(text.substr(at + 7), &f->irq)) return false;
  f->ret = 0;
  f->handler = strings.Intern(IrqVectorBaseName(strings.Get(name)));
  return true;
}

}  // namespace

bool ParseEventFields(std::string_view fields, StringTable& strings, Event* event) {
  event->napi = NapiPollFields{};
  switch (event->kind) {
    case EventKind::kSchedSwitch:
      return ParseSchedSwitch(fields, strings, &event->sched_switch);
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      return ParseWake(fields, strings, &event->wake);
    case EventKind::kSchedMigrateTask:
      return ParseMigrate(fields, strings, &event->migrate);
    case EventKind::kSchedPiSetprio:
      return ParsePiSetprio(fields, strings, &event->pi);
    case EventKind::kSchedProcessFork:
      return ParseFork(fields, strings, &event->fork);
    case EventKind::kSchedProcessExit:
      return ParseExit(fields, strings, &event->exit);
    case EventKind::kIrqHandlerEntry:
      return ParseIrqEntry(fields, strings, &event->irq);
    case EventKind::kIrqHandlerExit:
      return ParseIrqExit(fields, &event->irq);
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      return ParseSoftirq(fields, &event->softirq);
    case EventKind::kNapiPoll:
      return ParseNapiPoll(fields, strings, &event->napi);
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      return ParseNet(fields, strings, &event->net);
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return ParseIrqVector(fields, strings, event->name, &event->irq);
    default:
      return true;
  }
}

}  // namespace napiscope::internal
