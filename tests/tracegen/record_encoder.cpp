#include "tracegen/record_encoder.h"

#include <absl/strings/str_cat.h>

namespace napiscope::tracegen {
namespace {

// Format field names per kind, in the order Encode fills them (the decoder reads the same).
std::vector<const char*> FieldNamesFor(EventKind kind) {
  switch (kind) {
    case EventKind::kSchedSwitch:
      return {"prev_comm", "prev_pid", "prev_prio", "prev_state",
              "next_comm", "next_pid", "next_prio"};
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      return {"comm", "pid", "prio", "target_cpu"};
    case EventKind::kSchedMigrateTask:
      return {"comm", "pid", "prio", "orig_cpu", "dest_cpu"};
    case EventKind::kSchedPiSetprio:
      return {"comm", "pid", "oldprio", "newprio"};
    case EventKind::kSchedProcessFork:
      return {"parent_comm", "parent_pid", "child_comm", "child_pid"};
    case EventKind::kSchedProcessExit:
      return {"comm", "pid", "prio", "group_dead"};
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
      return {"name", "len", "rc", "skbaddr"};
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      return {"vector"};
    default:
      return {};
  }
}

void PutInt(std::string* out, const FieldLayout& field, uint64_t value) {
  if (!field.valid() || field.data_loc) return;
  for (int i = 0; i < field.size && i < 8; ++i) {
    (*out)[field.offset + i] = static_cast<char>(value >> (8 * i));
  }
}

// Fixed char arrays get at most size-1 characters and a NUL, like the kernel's strscpy;
// __data_loc strings are appended after the fixed part with their NUL.
void PutString(std::string* out, const FieldLayout& field, std::string_view text) {
  if (!field.valid()) return;
  if (!field.data_loc) {
    size_t n = std::min<size_t>(text.size(), field.size > 0 ? field.size - 1 : 0);
    out->replace(field.offset, n, text.data(), n);
    return;
  }
  uint32_t offset = static_cast<uint32_t>(out->size());
  uint32_t length = static_cast<uint32_t>(text.size() + 1);
  out->append(text);
  out->push_back('\0');
  PutInt(out, FieldLayout{field.offset, 4, false}, (length << 16) | offset);
}

}  // namespace

RecordEncoder::RecordEncoder(const FormatCatalog& catalog, const StringTable& strings,
                             CommLookup comms)
    : catalog_(catalog), strings_(strings), comms_(std::move(comms)) {}

const RecordEncoder::Recipe* RecordEncoder::RecipeFor(const Event& event) {
  if (event.name >= recipes_.size()) recipes_.resize(event.name + 1);
  Recipe& recipe = recipes_[event.name];
  if (recipe.layout != nullptr) return &recipe;
  const EventLayout* layout = catalog_.Find(strings_.Get(event.name));
  if (layout == nullptr) return nullptr;
  recipe.layout = layout;
  recipe.common_type = layout->Field("common_type");
  recipe.common_flags = layout->Field("common_flags");
  recipe.common_pid = layout->Field("common_pid");
  for (const char* name : FieldNamesFor(event.kind)) recipe.fields.push_back(layout->Field(name));
  return &recipe;
}

absl::Status RecordEncoder::Encode(const Event& event, std::string* out) {
  const Recipe* recipe = RecipeFor(event);
  if (recipe == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no format for event '", std::string(strings_.Get(event.name)), "'"));
  }
  out->assign(recipe->layout->fixed_size, '\0');
  PutInt(out, recipe->common_type, recipe->layout->id);
  PutInt(out, recipe->common_flags, event.flags);
  PutInt(out, recipe->common_pid, static_cast<uint32_t>(event.pid));
  const std::vector<FieldLayout>& f = recipe->fields;
  auto str = [&](size_t i, StringId id) { PutString(out, f[i], strings_.Get(id)); };
  auto num = [&](size_t i, int64_t value) { PutInt(out, f[i], static_cast<uint64_t>(value)); };
  switch (event.kind) {
    case EventKind::kSchedSwitch: {
      const SchedSwitchFields& s = event.sched_switch;
      str(0, s.prev_comm), num(1, s.prev_pid), num(2, s.prev_prio), num(3, s.prev_state);
      str(4, s.next_comm), num(5, s.next_pid), num(6, s.next_prio);
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      str(0, event.wake.comm), num(1, event.wake.pid), num(2, event.wake.prio);
      num(3, event.wake.target_cpu);
      break;
    case EventKind::kSchedMigrateTask:
      str(0, event.migrate.comm), num(1, event.migrate.pid), num(2, event.migrate.prio);
      num(3, event.migrate.orig_cpu), num(4, event.migrate.dest_cpu);
      break;
    case EventKind::kSchedPiSetprio:
      str(0, event.pi.comm), num(1, event.pi.pid), num(2, event.pi.old_prio);
      num(3, event.pi.new_prio);
      break;
    case EventKind::kSchedProcessFork:
      PutString(out, f[0], comms_(event.fork.parent_pid));
      num(1, event.fork.parent_pid), str(2, event.fork.child_comm), num(3, event.fork.child_pid);
      break;
    case EventKind::kSchedProcessExit:
      str(0, event.exit.comm), num(1, event.exit.pid), num(2, event.exit.prio), num(3, 1);
      break;
    case EventKind::kIrqHandlerEntry:
      num(0, event.irq.irq), str(1, event.irq.handler);
      break;
    case EventKind::kIrqHandlerExit:
      num(0, event.irq.irq), num(1, event.irq.ret);
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      num(0, event.softirq.vec);
      break;
    case EventKind::kNapiPoll:
      num(0, static_cast<int64_t>(event.napi.napi)), str(1, event.napi.dev);
      num(2, event.napi.work), num(3, event.napi.budget);
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      str(0, event.net.dev), num(1, event.net.len), num(2, event.net.rc);
      num(3, static_cast<int64_t>(next_skbaddr_ += 0x100));
      break;
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      num(0, event.irq.irq);
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace napiscope::tracegen
