#include "load/event_decoder.h"

#include <cstring>
#include <string_view>

#include <traceevent/event-parse.h>

namespace napiscope::internal {
namespace {

constexpr int kMaxEventId = 1 << 20;

// Field names per kind, in the order Decode reads them.
std::vector<const char*> FieldNamesOf(EventKind kind) {
  switch (kind) {
    case EventKind::kSchedSwitch:
      return {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid",
              "next_prio"};
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      return {"comm", "pid", "prio", "target_cpu"};
    case EventKind::kSchedMigrateTask:
      return {"comm", "pid", "prio", "orig_cpu", "dest_cpu"};
    case EventKind::kSchedPiSetprio:
      return {"comm", "pid", "oldprio", "newprio"};
    case EventKind::kSchedProcessFork:
      return {"parent_pid", "child_comm", "child_pid"};
    case EventKind::kSchedProcessExit:
      return {"comm", "pid", "prio"};
    case EventKind::kIrqHandlerEntry:
      return {"irq", "name"};
    case EventKind::kIrqHandlerExit:
      return {"irq", "ret"};
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      return {"vec"};
    case EventKind::kNapiPoll:
      return {"napi", "dev_name", "work", "budget"};
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      return {"name", "len", "rc"};
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return {"vector"};
    default:
      return {};
  }
}

FieldRef Resolve(tep_event* event, const char* name) {
  FieldRef ref;
  tep_format_field* field = tep_find_any_field(event, name);
  if (field == nullptr) return ref;
  ref.offset = field->offset;
  ref.size = field->size;
  ref.is_signed = (field->flags & TEP_FIELD_IS_SIGNED) != 0;
  ref.dynamic = (field->flags & TEP_FIELD_IS_DYNAMIC) != 0;
  ref.relative = (field->flags & TEP_FIELD_IS_RELATIVE) != 0;
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
    recipe.kind = EventKindFromName(name);
    // irq_vectors names are also plain words elsewhere; only trust them in that system.
    bool is_vector =
        recipe.kind == EventKind::kIrqVectorEntry || recipe.kind == EventKind::kIrqVectorExit;
    if (is_vector && std::string_view(event->system ? event->system : "") != "irq_vectors") {
      recipe.kind = EventKind::kOther;
    }
    if (is_vector) recipe.handler = strings_->Intern(IrqVectorBaseName(name));
    for (const char* field : FieldNamesOf(recipe.kind)) recipe.fields.push_back(Resolve(event, field));
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

int64_t EventDecoder::ReadInt(const uint8_t* data, int size, const FieldRef& field) const {
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
    uint32_t locator = static_cast<uint32_t>(ReadInt(data, size, locator_field));
    start = locator & 0xffff;
    length = locator >> 16;
    if (field.relative) start += int64_t{field.offset} + field.size;
    if (!FitsInRecord(start, length, size)) return 0;
  }
  const char* text = reinterpret_cast<const char*>(data + start);
  size_t bytes = static_cast<size_t>(length);
  if (length != 16) return strings_->Intern(std::string_view(text, strnlen(text, bytes)));
  uint64_t low, high;
  std::memcpy(&low, text, 8);
  std::memcpy(&high, text + 8, 8);
  uint64_t hash = (low ^ (high * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  CommCacheEntry& entry = comm_cache_[(hash >> 56) % kCommCacheSize];
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
  auto i16 = [&](size_t i) { return static_cast<int16_t>(ReadInt(data, size, f[i])); };
  auto str = [&](size_t i) { return ReadString(data, size, f[i]); };
  switch (recipe.kind) {
    case EventKind::kSchedSwitch:
      event->sched_switch = {i32(1), i32(5), i16(2), i16(6),
                             static_cast<uint16_t>(ReadInt(data, size, f[3]) & 0xffff), str(0),
                             str(4)};
      break;
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      event->wake = {i32(1), i16(2), i16(3), str(0)};
      break;
    case EventKind::kSchedMigrateTask:
      event->migrate = {i32(1), i16(2), i16(3), i16(4), str(0)};
      break;
    case EventKind::kSchedPiSetprio:
      event->pi = {i32(1), i16(2), i16(3), str(0)};
      break;
    case EventKind::kSchedProcessFork:
      event->fork = {i32(0), i32(2), str(1)};
      break;
    case EventKind::kSchedProcessExit:
      event->exit = {i32(1), i16(2), str(0)};
      break;
    case EventKind::kIrqHandlerEntry:
      event->irq = {i32(0), 0, str(1)};
      break;
    case EventKind::kIrqHandlerExit:
      event->irq = {i32(0), i32(1), 0};
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      event->softirq = {static_cast<uint32_t>(ReadInt(data, size, f[0]))};
      break;
    case EventKind::kNapiPoll:
      event->napi = {static_cast<uint64_t>(ReadInt(data, size, f[0])), str(1), i32(2), i32(3)};
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      event->net = {str(0), static_cast<uint32_t>(ReadInt(data, size, f[1])), i32(2)};
      break;
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      event->irq = {i32(0), 0, recipe.handler};
      break;
    default:
      break;
  }
  return true;
}

}  // namespace napiscope::internal
