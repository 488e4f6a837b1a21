#include "tracegen/record_encoder.h"

#include <absl/strings/str_cat.h>

#include "napiscope/event_schema.h"

namespace napiscope::tracegen {
namespace {

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
  for (const SchemaField& field : SchemaOf(event.kind).fields) {
    recipe.fields.push_back(layout->Field(field.name));
  }
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
      namespace field = sched_switch_field;
      const SchedSwitchFields& s = event.sched_switch;
      str(field::kPrevComm, s.prev_comm), num(field::kPrevPid, s.prev_pid);
      num(field::kPrevPrio, s.prev_prio), num(field::kPrevState, s.prev_state);
      str(field::kNextComm, s.next_comm), num(field::kNextPid, s.next_pid);
      num(field::kNextPrio, s.next_prio);
      break;
    }
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew: {
      namespace field = wake_field;
      str(field::kComm, event.wake.comm), num(field::kPid, event.wake.pid);
      num(field::kPrio, event.wake.prio), num(field::kTargetCpu, event.wake.target_cpu);
      break;
    }
    case EventKind::kSchedMigrateTask: {
      namespace field = migrate_field;
      str(field::kComm, event.migrate.comm), num(field::kPid, event.migrate.pid);
      num(field::kPrio, event.migrate.prio), num(field::kOrigCpu, event.migrate.orig_cpu);
      num(field::kDestCpu, event.migrate.dest_cpu);
      break;
    }
    case EventKind::kSchedPiSetprio: {
      namespace field = pi_setprio_field;
      str(field::kComm, event.pi.comm), num(field::kPid, event.pi.pid);
      num(field::kOldPrio, event.pi.old_prio), num(field::kNewPrio, event.pi.new_prio);
      break;
    }
    case EventKind::kSchedProcessFork: {
      namespace field = fork_field;
      PutString(out, f[field::kParentComm], comms_(event.fork.parent_pid));
      num(field::kParentPid, event.fork.parent_pid);
      str(field::kChildComm, event.fork.child_comm), num(field::kChildPid, event.fork.child_pid);
      break;
    }
    case EventKind::kSchedProcessExit: {
      namespace field = exit_field;
      str(field::kComm, event.exit.comm), num(field::kPid, event.exit.pid);
      num(field::kPrio, event.exit.prio), num(field::kGroupDead, 1);
      break;
    }
    case EventKind::kIrqHandlerEntry:
      num(irq_handler_field::kIrq, event.irq.irq), str(irq_handler_field::kName, event.irq.handler);
      break;
    case EventKind::kIrqHandlerExit:
      num(irq_handler_field::kIrq, event.irq.irq), num(irq_handler_field::kRet, event.irq.ret);
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      num(softirq_field::kVec, event.softirq.vec);
      break;
    case EventKind::kNapiPoll: {
      namespace field = napi_poll_field;
      num(field::kNapi, static_cast<int64_t>(event.napi.napi)),
          str(field::kDevName, event.napi.dev);
      num(field::kWork, event.napi.work), num(field::kBudget, event.napi.budget);
      break;
    }
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx: {
      namespace field = net_receive_field;
      num(field::kSkbaddr, static_cast<int64_t>(next_skbaddr_ += 0x100));
      num(field::kLen, event.net.len), str(field::kName, event.net.dev);
      break;
    }
    case EventKind::kNetDevXmit: {
      namespace field = net_dev_xmit_field;
      num(field::kSkbaddr, static_cast<int64_t>(next_skbaddr_ += 0x100));
      num(field::kLen, event.net.len), num(field::kRc, event.net.rc);
      str(field::kName, event.net.dev);
      break;
    }
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      num(irq_vector_field::kVector, event.irq.irq);
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace napiscope::tracegen
