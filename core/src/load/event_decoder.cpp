#include "load/event_decoder.h"

#include <cstring>
#include <string>
#include <string_view>

#include <traceevent/event-parse.h>

#include "napiscope/event_schema.h"

namespace napiscope::internal {
namespace {

constexpr int kMaxEventId = 1 << 20;

// FieldRef::int_shift of a field of `size` bytes.
int8_t IntShift(int size) {
  return size == 1 || size == 2 || size == 4 || size == 8 ? static_cast<int8_t>(64 - 8 * size)
                                                          : int8_t{-1};
}

FieldRef Resolve(tep_event* event, std::string_view name) {
  FieldRef ref;
  tep_format_field* field = tep_find_any_field(event, std::string(name).c_str());
  if (field == nullptr) return ref;
  ref.offset = field->offset;
  ref.size = field->size;
  ref.is_signed = (field->flags & TEP_FIELD_IS_SIGNED) != 0;
  ref.dynamic = (field->flags & TEP_FIELD_IS_DYNAMIC) != 0;
  ref.relative = (field->flags & TEP_FIELD_IS_RELATIVE) != 0;
  ref.int_shift = IntShift(ref.size);
  return ref;
}

}  // namespace

EventDecoder::EventDecoder(const TraceFormats& formats, StringTable* strings)
    : strings_(strings),
      swap_bytes_(tep_is_file_bigendian(formats.tep) != tep_is_local_bigendian(formats.tep)) {
  tep_handle* tep = formats.tep;
  unknown_.name = strings_->Intern("<unknown event id>");
  int count = tep_get_events_count(tep);
  if (count == 0) return;
  // Every event shares the common header; take it from any event.
  tep_event* any = tep_get_event(tep, 0);
  common_type_ = Resolve(any, "common_type");
  common_flags_ = Resolve(any, "common_flags");
  common_pid_ = Resolve(any, "common_pid");
  for (int i = 0; i < count; ++i) {
    tep_event* event = tep_get_event(tep, i);
    if (event == nullptr || event->id < 0 || event->id > kMaxEventId) continue;
    if (static_cast<size_t>(event->id) >= recipes_.size()) recipes_.resize(event->id + 1);
    EventRecipe& recipe = recipes_[event->id];
    recipe.known = true;
    std::string_view name = event->name ? event->name : "";
    recipe.name = strings_->Intern(name);
    recipe.kind = EventKindOf(event->system ? event->system : "", name);
    if (recipe.kind == EventKind::kIrqVectorEntry || recipe.kind == EventKind::kIrqVectorExit) {
      recipe.handler = strings_->Intern(IrqVectorBaseName(name));
    }
    // Fields napiscope only writes stay unresolved: Decode must not read them.
    for (const SchemaField& field : SchemaOf(recipe.kind).fields) {
      recipe.fields.push_back(field.decoded ? Resolve(event, field.name) : FieldRef{});
    }
  }
  for (const FormatIdentity& format : formats.unparsed) {
    if (format.id < 0 || format.id > kMaxEventId) continue;
    if (static_cast<size_t>(format.id) >= recipes_.size()) recipes_.resize(format.id + 1);
    EventRecipe& recipe = recipes_[format.id];
    if (recipe.known) continue;  // a parsed format of the same id wins
    recipe.known = true;
    recipe.name = strings_->Intern(format.name);
  }
}

namespace {

// True when [offset, offset + length) lies inside a record of `size` bytes. Offsets and sizes
// come from the file's format text (any int), so the sum is taken in 64 bits.
bool FitsInRecord(int64_t offset, int64_t length, int size) {
  return offset >= 0 && length >= 0 && offset + length <= static_cast<int64_t>(size);
}

}  // namespace

const EventRecipe& EventDecoder::RecipeFor(int id) {
  if (id < 0 || static_cast<size_t>(id) >= recipes_.size() || !recipes_[id].known) return unknown_;
  return recipes_[id];
}

int64_t EventDecoder::ReadIntField(const uint8_t* data, int size, const FieldRef& field) const {
  if (!field.valid() || !FitsInRecord(field.offset, field.size, size)) return 0;
  const uint8_t* at = data + field.offset;
  uint64_t raw;
  switch (field.size) {
    case 1:
      raw = *at;
      break;
    case 2: {
      uint16_t v;
      std::memcpy(&v, at, 2);
      raw = swap_bytes_ ? __builtin_bswap16(v) : v;
      break;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, at, 4);
      raw = swap_bytes_ ? __builtin_bswap32(v) : v;
      break;
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, at, 8);
      raw = swap_bytes_ ? __builtin_bswap64(v) : v;
      break;
    }
    default:
      return 0;
  }
  if (field.is_signed && field.size < 8) {
    int shift = 64 - field.size * 8;
    return static_cast<int64_t>(raw << shift) >> shift;
  }
  return static_cast<int64_t>(raw);
}

StringId EventDecoder::ReadString(const uint8_t* data, int size, const FieldRef& field) {
  if (!field.valid() || !FitsInRecord(field.offset, field.size, size)) return 0;
  int64_t start = field.offset;
  int64_t length = field.size;
  if (field.dynamic) {
    FieldRef locator_field = field;
    locator_field.size = 4;
    locator_field.is_signed = false;
    locator_field.int_shift = IntShift(4);
    uint32_t locator = static_cast<uint32_t>(ReadInt(data, size, locator_field));
    start = locator & 0xffff;
    length = locator >> 16;
    if (field.relative) start += int64_t{field.offset} + field.size;
    if (!FitsInRecord(start, length, size)) return 0;
  }
  const char* text = reinterpret_cast<const char*>(data + start);
  size_t bytes = static_cast<size_t>(length);
  if (bytes > kShortStringBytes) {
    return strings_->Intern(std::string_view(text, strnlen(text, bytes)));
  }
  // Zero padding keeps the key exact: the string ends at its first NUL or at `bytes`, and
  // the padding adds only NULs after it.
  char padded[kShortStringBytes] = {};
  std::memcpy(padded, text, bytes);
  uint64_t low, high;
  std::memcpy(&low, padded, 8);
  std::memcpy(&high, padded + 8, 8);
  uint64_t hash = (low ^ (high * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  ShortStringEntry& entry = short_strings_[(hash >> 56) % kShortStringCacheSize];
  if (!entry.valid || entry.low != low || entry.high != high) {
    entry = {low, high, strings_->Intern(std::string_view(text, strnlen(text, bytes))), true};
  }
  return entry.id;
}

bool EventDecoder::Decode(const void* raw, int size, Event* event) {
  const uint8_t* data = static_cast<const uint8_t*>(raw);
  if (!common_type_.valid() || !FitsInRecord(common_pid_.offset, common_pid_.size, size)) {
    return false;
  }
  const EventRecipe& recipe = RecipeFor(static_cast<int>(ReadInt(data, size, common_type_)));
  event->name = recipe.name;
  if (!recipe.known) return false;
  event->kind = recipe.kind;
  event->flags = static_cast<uint8_t>(ReadInt(data, size, common_flags_));
  event->pid = static_cast<int32_t>(ReadInt(data, size, common_pid_));
  event->napi = NapiPollFields{};
  const std::vector<FieldRef>& f = recipe.fields;
  auto i32 = [&](size_t i) { return static_cast<int32_t>(ReadInt(data, size, f[i])); };
  auto u32 = [&](size_t i) { return static_cast<uint32_t>(ReadInt(data, size, f[i])); };
  auto i16 = [&](size_t i) { return static_cast<int16_t>(ReadInt(data, size, f[i])); };
  auto str = [&](size_t i) { return ReadString(data, size, f[i]); };
  switch (recipe.kind) {
    case EventKind::kSchedSwitch: {
      namespace field = sched_switch_field;
      // prev_state is a long; its TASK_REPORT bits fit the low 16.
      auto prev_state = static_cast<uint16_t>(ReadInt(data, size, f[field::kPrevState]) & 0xffff);
      event->sched_switch = {i32(field::kPrevPid),  i32(field::kNextPid), i16(field::kPrevPrio),
                             i16(field::kNextPrio), prev_state,           str(field::kPrevComm),
                             str(field::kNextComm)};
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew: {
      namespace field = wake_field;
      event->wake = {i32(field::kPid), i16(field::kPrio), i16(field::kTargetCpu),
                     str(field::kComm)};
      break;
    }
    case EventKind::kSchedMigrateTask: {
      namespace field = migrate_field;
      event->migrate = {i32(field::kPid), i16(field::kPrio), i16(field::kOrigCpu),
                        i16(field::kDestCpu), str(field::kComm)};
      break;
    }
    case EventKind::kSchedPiSetprio: {
      namespace field = pi_setprio_field;
      event->pi = {i32(field::kPid), i16(field::kOldPrio), i16(field::kNewPrio), str(field::kComm)};
      break;
    }
    case EventKind::kSchedProcessFork: {
      namespace field = fork_field;
      event->fork = {i32(field::kParentPid), i32(field::kChildPid), str(field::kChildComm)};
      break;
    }
    case EventKind::kSchedProcessExit: {
      namespace field = exit_field;
      event->exit = {i32(field::kPid), i16(field::kPrio), str(field::kComm)};
      break;
    }
    case EventKind::kIrqHandlerEntry:
      event->irq = {i32(irq_handler_field::kIrq), 0, str(irq_handler_field::kName)};
      break;
    case EventKind::kIrqHandlerExit:
      event->irq = {i32(irq_handler_field::kIrq), i32(irq_handler_field::kRet), 0};
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      event->softirq = {u32(softirq_field::kVec)};
      break;
    case EventKind::kNapiPoll: {
      namespace field = napi_poll_field;
      event->napi = {static_cast<uint64_t>(ReadInt(data, size, f[field::kNapi])),
                     str(field::kDevName), i32(field::kWork), i32(field::kBudget)};
      break;
    }
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
      event->net = {str(net_receive_field::kName), u32(net_receive_field::kLen), 0};
      break;
    case EventKind::kNetDevXmit: {
      namespace field = net_dev_xmit_field;
      event->net = {str(field::kName), u32(field::kLen), i32(field::kRc)};
      break;
    }
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      event->irq = {i32(irq_vector_field::kVector), 0, recipe.handler};
      break;
    default:
      break;
  }
  return true;
}

}  // namespace napiscope::internal
