#include "load/text_fields.h"

#include <array>
#include <charconv>
#include <span>
#include <string>
#include <vector>

#include "load/text_line_parser.h"
#include "napiscope/event_schema.h"

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

// One key of a "k1=v1 k2=v2 ..." field list.
struct FieldKey {
  std::string_view key;   // "prev_pid="
  bool optional = false;  // a line may lack it (a field older kernels do not have)
};

// One value per key, indexed as the keys.
using FieldValues = std::array<std::string_view, kMaxSchemaFields>;

// The values of a "k1=v1 k2=v2 ..." field list, keys given in print order; an optional key the
// text lacks gets an empty value. A value runs to the space before the next key found, so comms
// with spaces survive; interleaved keys napiscope does not read ("success=1") are left inside
// the value before them and cut by FirstWord.
bool SplitKeyValues(std::string_view text, std::span<const FieldKey> keys, FieldValues* values) {
  constexpr size_t kAbsent = std::string_view::npos;
  std::array<size_t, kMaxSchemaFields> starts{};
  size_t from = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    starts[i] = FindKey(text, keys[i].key, from);
    if (starts[i] == kAbsent) {
      if (!keys[i].optional) return false;
      continue;
    }
    from = starts[i] + keys[i].key.size();
  }
  size_t next_start = text.size() + 1;  // as if a space and a key followed the text
  for (size_t i = keys.size(); i-- > 0;) {
    if (starts[i] == kAbsent) {
      (*values)[i] = {};
      continue;
    }
    size_t begin = starts[i] + keys[i].key.size();
    (*values)[i] = text.substr(begin, next_start - 1 - begin);
    next_start = starts[i];
  }
  return true;
}

constexpr size_t kKindCount = static_cast<size_t>(EventKind::kCount);

// "name=" for every field of every kind, indexed as the event schema.
const std::array<std::vector<std::string>, kKindCount>& RawKeyTexts() {
  static const auto texts = [] {
    std::array<std::vector<std::string>, kKindCount> by_kind;
    for (const EventSchema& schema : kEventSchemas) {
      for (const SchemaField& field : schema.fields) {
        by_kind[static_cast<size_t>(schema.kind)].push_back(std::string(field.name) + "=");
      }
    }
    return by_kind;
  }();
  return texts;
}

// The keys of a kind's raw fields, indexed as the event schema: `trace-cmd report -R` prints
// every format field as name=value, in the format's order. Fields napiscope only writes are
// optional, since older kernels lack some of them (sched_process_exit's group_dead).
std::span<const FieldKey> RawKeysOf(EventKind kind) {
  static const auto keys = [] {
    std::array<std::vector<FieldKey>, kKindCount> by_kind;
    for (const EventSchema& schema : kEventSchemas) {
      const size_t index = static_cast<size_t>(schema.kind);
      for (size_t i = 0; i < schema.fields.size(); ++i) {
        by_kind[index].push_back({RawKeyTexts()[index][i], !schema.fields[i].decoded});
      }
    }
    return by_kind;
  }();
  return keys[static_cast<size_t>(kind)];
}

// True when `text` starts with the kind's first raw key: the raw form, or a print format that
// spells the fields as the raw form does (sched_switch, the wakeups).
bool StartsWithRawKeys(std::string_view text, EventKind kind) {
  return FindKey(text, RawKeysOf(kind).front().key, 0) == 0;
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
  if (StartsWithRawKeys(text, EventKind::kSchedSwitch)) {
    namespace field = sched_switch_field;
    FieldValues v;
    if (!SplitKeyValues(text, RawKeysOf(EventKind::kSchedSwitch), &v) ||
        !Int32Of(v[field::kPrevPid], &f->prev_pid) ||
        !Int16Of(v[field::kPrevPrio], &f->prev_prio) ||
        !ParsePrevState(FirstWord(v[field::kPrevState]), &f->prev_state) ||
        !Int32Of(v[field::kNextPid], &f->next_pid) ||
        !Int16Of(v[field::kNextPrio], &f->next_prio)) {
      return false;
    }
    f->prev_comm = strings.Intern(v[field::kPrevComm]);
    f->next_comm = strings.Intern(v[field::kNextComm]);
    return true;
  }
  // trace-cmd plugin: "prev:pid [prio] S ==> next:pid [prio]", with report -w's
  // " Latency: 37.211 usecs" after it when the next task's wakeup was seen.
  size_t latency = text.rfind(" Latency: ");
  if (latency != std::string_view::npos && text.ends_with(" usecs")) {
    text = text.substr(0, latency);
  }
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
  if (StartsWithRawKeys(text, EventKind::kSchedWaking)) {
    namespace field = wake_field;
    FieldValues v;
    if (!SplitKeyValues(text, RawKeysOf(EventKind::kSchedWaking), &v) ||
        !Int32Of(v[field::kPid], &f->pid) || !Int16Of(v[field::kPrio], &f->prio) ||
        !Int16Of(v[field::kTargetCpu], &f->target_cpu)) {
      return false;
    }
    f->comm = strings.Intern(v[field::kComm]);
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
  namespace field = migrate_field;
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kSchedMigrateTask), &v) ||
      !Int32Of(v[field::kPid], &f->pid) || !Int16Of(v[field::kPrio], &f->prio) ||
      !Int16Of(v[field::kOrigCpu], &f->orig_cpu) || !Int16Of(v[field::kDestCpu], &f->dest_cpu)) {
    return false;
  }
  f->comm = strings.Intern(v[field::kComm]);
  return true;
}

bool ParsePiSetprio(std::string_view text, StringTable& strings, PiSetprioFields* f) {
  namespace field = pi_setprio_field;
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kSchedPiSetprio), &v) ||
      !Int32Of(v[field::kPid], &f->pid) || !Int16Of(v[field::kOldPrio], &f->old_prio) ||
      !Int16Of(v[field::kNewPrio], &f->new_prio)) {
    return false;
  }
  f->comm = strings.Intern(v[field::kComm]);
  return true;
}

// The raw fields (-R) are "parent_comm= parent_pid= child_comm= child_pid="; the print format
// has the same fields in the same order but says "comm= pid=" for the parent's.
bool ParseFork(std::string_view text, StringTable& strings, ForkFields* f) {
  static constexpr std::array<FieldKey, 4> kPrintKeys = {
      {{"comm="}, {"pid="}, {"child_comm="}, {"child_pid="}}};
  static_assert(kPrintKeys.size() == SchemaOf(EventKind::kSchedProcessFork).fields.size());
  namespace field = fork_field;
  const bool raw = StartsWithRawKeys(text, EventKind::kSchedProcessFork);
  FieldValues v;
  if (!SplitKeyValues(text, raw ? RawKeysOf(EventKind::kSchedProcessFork) : kPrintKeys, &v) ||
      !Int32Of(v[field::kParentPid], &f->parent_pid) ||
      !Int32Of(v[field::kChildPid], &f->child_pid)) {
    return false;
  }
  f->child_comm = strings.Intern(v[field::kChildComm]);
  return true;
}

bool ParseExit(std::string_view text, StringTable& strings, ExitFields* f) {
  namespace field = exit_field;
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kSchedProcessExit), &v) ||
      !Int32Of(v[field::kPid], &f->pid) || !Int16Of(v[field::kPrio], &f->prio)) {
    return false;
  }
  f->comm = strings.Intern(v[field::kComm]);
  return true;
}

bool ParseIrqEntry(std::string_view text, StringTable& strings, IrqFields* f) {
  namespace field = irq_handler_field;
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kIrqHandlerEntry), &v) ||
      !Int32Of(v[field::kIrq], &f->irq)) {
    return false;
  }
  f->ret = 0;
  f->handler = strings.Intern(v[field::kName]);
  return true;
}

bool ParseIrqExit(std::string_view text, IrqFields* f) {
  namespace field = irq_handler_field;
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kIrqHandlerExit), &v) ||
      !Int32Of(v[field::kIrq], &f->irq)) {
    return false;
  }
  // The print format only says whether ret was non-zero.
  std::string_view ret = FirstWord(v[field::kRet]);
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
  FieldValues v;
  int32_t vec = 0;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kSoftirqRaise), &v) ||
      !Int32Of(v[softirq_field::kVec], &vec) || vec < 0) {
    return false;
  }
  f->vec = static_cast<uint32_t>(vec);
  return true;
}

// The raw fields (-R): "napi=%p dev_name=%s work=%d budget=%d".
bool ParseRawNapiPoll(std::string_view text, StringTable& strings, NapiPollFields* f) {
  namespace field = napi_poll_field;
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kNapiPoll), &v) ||
      !Int32Of(v[field::kWork], &f->work) || !Int32Of(v[field::kBudget], &f->budget)) {
    return false;
  }
  f->napi = PointerOf(v[field::kNapi]);
  f->dev = strings.Intern(v[field::kDevName]);
  return true;
}

// "napi poll on napi struct %p for device %s work %d budget %d"
bool ParseNapiPoll(std::string_view text, StringTable& strings, NapiPollFields* f) {
  if (StartsWithRawKeys(text, EventKind::kNapiPoll)) return ParseRawNapiPoll(text, strings, f);
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

// The raw fields (-R): "skbaddr=%p len=%u name=%s", net_dev_xmit with "rc=%d" before the name.
bool ParseRawNet(std::string_view text, EventKind kind, StringTable& strings, NetFields* f) {
  FieldValues v;
  int32_t len = 0;
  f->rc = 0;
  if (!SplitKeyValues(text, RawKeysOf(kind), &v)) return false;
  if (kind == EventKind::kNetDevXmit) {
    namespace field = net_dev_xmit_field;
    if (!Int32Of(v[field::kLen], &len) || !Int32Of(v[field::kRc], &f->rc)) return false;
    f->dev = strings.Intern(v[field::kName]);
  } else {
    namespace field = net_receive_field;
    if (!Int32Of(v[field::kLen], &len)) return false;
    f->dev = strings.Intern(v[field::kName]);
  }
  f->len = static_cast<uint32_t>(len);
  return true;
}

// "dev=%s skbaddr=%p len=%u" and, for net_dev_xmit, " rc=%d".
bool ParseNet(std::string_view text, EventKind kind, StringTable& strings, NetFields* f) {
  if (StartsWithRawKeys(text, kind)) return ParseRawNet(text, kind, strings, f);
  static constexpr std::array<FieldKey, 3> kPrintKeys = {{{"dev="}, {"skbaddr="}, {"len="}}};
  FieldValues v;
  int32_t len = 0;
  if (!SplitKeyValues(text, kPrintKeys, &v) || !Int32Of(v[2], &len)) return false;
  f->dev = strings.Intern(v[0]);
  f->len = static_cast<uint32_t>(len);
  f->rc = 0;
  size_t rc = FindKey(text, "rc=", 0);
  if (rc != std::string_view::npos && !Int32Of(text.substr(rc + 3), &f->rc)) return false;
  return true;
}

// x86 irq_vectors events: "vector=236"; the handler is the vector's name, as the decoder sets.
bool ParseIrqVector(std::string_view text, StringTable& strings, StringId name, IrqFields* f) {
  FieldValues v;
  if (!SplitKeyValues(text, RawKeysOf(EventKind::kIrqVectorEntry), &v) ||
      !Int32Of(v[irq_vector_field::kVector], &f->irq)) {
    return false;
  }
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
      return ParseNet(fields, event->kind, strings, &event->net);
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return ParseIrqVector(fields, strings, event->name, &event->irq);
    default:
      return true;
  }
}

}  // namespace napiscope::internal
