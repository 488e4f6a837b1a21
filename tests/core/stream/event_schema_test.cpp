// The event schema against the kernel formats napiscope ships (testdata/formats): every kernel
// kind has an entry, its fields are its format's fields in the format's order, and each decoded
// field fits the Event member it fills.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/event_schema.h"
#include "tracegen/format_catalog.h"

namespace napiscope {
namespace {

using tracegen::EventLayout;
using tracegen::FormatCatalog;

std::vector<EventKind> KernelKinds() {
  std::vector<EventKind> kinds;
  for (size_t i = 0; i < static_cast<size_t>(EventKind::kCount); ++i) {
    EventKind kind = static_cast<EventKind>(i);
    if (kind != EventKind::kOther && kind != EventKind::kMissedEvents) kinds.push_back(kind);
  }
  return kinds;
}

bool IsIrqVector(EventKind kind) {
  return kind == EventKind::kIrqVectorEntry || kind == EventKind::kIrqVectorExit;
}

// The formats of testdata/formats a kind's entry describes: its event, or for the irq_vectors
// kinds every vector's *_entry (or *_exit).
std::vector<const EventLayout*> FormatsOf(EventKind kind) {
  std::vector<const EventLayout*> formats;
  for (const EventLayout& layout : FormatCatalog::Embedded().events()) {
    if (EventKindOf(layout.system, layout.name) == kind) formats.push_back(&layout);
  }
  return formats;
}

// The Event member a decoded field fills.
struct Member {
  EventKind kind;
  std::string_view field;
  size_t bytes;   // sizeof the member; a string is a StringId
  bool string;    // the kernel field is a char array or a __data_loc string
  bool narrowed;  // the kernel's type is wider than its values (priorities 0-139, CPU numbers,
                  // prev_state's TASK_REPORT bits): the member keeps the low bytes
};

template <typename T>
Member Number(EventKind kind, std::string_view field, const T&) {
  return {kind, field, sizeof(T), false, false};
}
template <typename T>
Member Narrowed(EventKind kind, std::string_view field, const T&) {
  return {kind, field, sizeof(T), false, true};
}
Member String(EventKind kind, std::string_view field) {
  return {kind, field, sizeof(StringId), true, false};
}

// What the loaders fill from each decoded field, written down apart from the table.
std::vector<Member> DecodedMembers() {
  using K = EventKind;
  const Event e;
  std::vector<Member> members = {
      String(K::kSchedSwitch, "prev_comm"),
      Number(K::kSchedSwitch, "prev_pid", e.sched_switch.prev_pid),
      Narrowed(K::kSchedSwitch, "prev_prio", e.sched_switch.prev_prio),
      Narrowed(K::kSchedSwitch, "prev_state", e.sched_switch.prev_state),
      String(K::kSchedSwitch, "next_comm"),
      Number(K::kSchedSwitch, "next_pid", e.sched_switch.next_pid),
      Narrowed(K::kSchedSwitch, "next_prio", e.sched_switch.next_prio),
      String(K::kSchedMigrateTask, "comm"),
      Number(K::kSchedMigrateTask, "pid", e.migrate.pid),
      Narrowed(K::kSchedMigrateTask, "prio", e.migrate.prio),
      Narrowed(K::kSchedMigrateTask, "orig_cpu", e.migrate.orig_cpu),
      Narrowed(K::kSchedMigrateTask, "dest_cpu", e.migrate.dest_cpu),
      String(K::kSchedPiSetprio, "comm"),
      Number(K::kSchedPiSetprio, "pid", e.pi.pid),
      Narrowed(K::kSchedPiSetprio, "oldprio", e.pi.old_prio),
      Narrowed(K::kSchedPiSetprio, "newprio", e.pi.new_prio),
      Number(K::kSchedProcessFork, "parent_pid", e.fork.parent_pid),
      String(K::kSchedProcessFork, "child_comm"),
      Number(K::kSchedProcessFork, "child_pid", e.fork.child_pid),
      String(K::kSchedProcessExit, "comm"),
      Number(K::kSchedProcessExit, "pid", e.exit.pid),
      Narrowed(K::kSchedProcessExit, "prio", e.exit.prio),
      Number(K::kIrqHandlerEntry, "irq", e.irq.irq),
      String(K::kIrqHandlerEntry, "name"),
      Number(K::kIrqHandlerExit, "irq", e.irq.irq),
      Number(K::kIrqHandlerExit, "ret", e.irq.ret),
      Number(K::kNapiPoll, "napi", e.napi.napi),
      String(K::kNapiPoll, "dev_name"),
      Number(K::kNapiPoll, "work", e.napi.work),
      Number(K::kNapiPoll, "budget", e.napi.budget),
      Number(K::kNetDevXmit, "len", e.net.len),
      Number(K::kNetDevXmit, "rc", e.net.rc),
      String(K::kNetDevXmit, "name"),
  };
  for (K kind : {K::kSchedWaking, K::kSchedWakeup, K::kSchedWakeupNew}) {
    members.push_back(String(kind, "comm"));
    members.push_back(Number(kind, "pid", e.wake.pid));
    members.push_back(Narrowed(kind, "prio", e.wake.prio));
    members.push_back(Narrowed(kind, "target_cpu", e.wake.target_cpu));
  }
  for (K kind : {K::kSoftirqRaise, K::kSoftirqEntry, K::kSoftirqExit}) {
    members.push_back(Number(kind, "vec", e.softirq.vec));
  }
  for (K kind : {K::kNetifReceiveSkb, K::kNetifRx}) {
    members.push_back(Number(kind, "len", e.net.len));
    members.push_back(String(kind, "name"));
  }
  for (K kind : {K::kIrqVectorEntry, K::kIrqVectorExit}) {
    members.push_back(Number(kind, "vector", e.irq.irq));
  }
  return members;
}

const Member* FindMember(const std::vector<Member>& members, EventKind kind,
                         std::string_view field) {
  for (const Member& member : members) {
    if (member.kind == kind && member.field == field) return &member;
  }
  return nullptr;
}

bool IsStringField(const EventLayout& layout, std::string_view field) {
  const std::string name(field);
  return layout.format_text.find("char " + name + "[") != std::string_view::npos ||
         layout.format_text.find("__data_loc char[] " + name + ";") != std::string_view::npos;
}

TEST(EventSchema, EveryKernelKindHasAnEntryAndOnlyThose) {
  for (size_t i = 0; i < static_cast<size_t>(EventKind::kCount); ++i) {
    EventKind kind = static_cast<EventKind>(i);
    const EventSchema& schema = SchemaOf(kind);
    SCOPED_TRACE(testing::Message() << "kind " << i << " " << schema.system << ":" << schema.name);
    EXPECT_EQ(schema.kind, kind);
    EXPECT_EQ(EventKindName(kind), schema.name);
    if (kind == EventKind::kOther || kind == EventKind::kMissedEvents) {
      EXPECT_TRUE(schema.system.empty() && schema.name.empty() && schema.fields.empty());
      continue;
    }
    EXPECT_FALSE(schema.system.empty());
    EXPECT_FALSE(schema.fields.empty());
    EXPECT_EQ(schema.name.empty(), IsIrqVector(kind));
    if (schema.name.empty()) continue;
    EXPECT_EQ(EventKindFromName(schema.name), kind);
    EXPECT_EQ(EventKindOf(schema.system, schema.name), kind);
  }
}

TEST(EventSchema, FieldsAreTheKernelFormatsFieldsInTheirOrder) {
  for (EventKind kind : KernelKinds()) {
    const EventSchema& schema = SchemaOf(kind);
    std::vector<const EventLayout*> formats = FormatsOf(kind);
    EXPECT_FALSE(formats.empty()) << "no format in testdata/formats/" << schema.system
                                  << " for kind " << static_cast<int>(kind);
    for (const EventLayout* layout : formats) {
      SCOPED_TRACE(layout->system + ":" + layout->name);
      EXPECT_EQ(layout->system, schema.system);
      std::vector<std::string> in_format, in_table;
      for (const auto& [name, field] : layout->fields) {
        if (!name.starts_with("common_")) in_format.push_back(name);
      }
      for (const SchemaField& field : schema.fields) in_table.emplace_back(field.name);
      EXPECT_EQ(in_table, in_format);
    }
  }
}

TEST(EventSchema, DecodedFieldsFitTheEventMembersTheyFill) {
  const std::vector<Member> members = DecodedMembers();
  for (EventKind kind : KernelKinds()) {
    for (const SchemaField& field : SchemaOf(kind).fields) {
      const Member* member = FindMember(members, kind, field.name);
      EXPECT_EQ(member != nullptr, field.decoded)
          << field.name << " of kind " << static_cast<int>(kind)
          << (field.decoded ? " is decoded but fills no Event member this test knows"
                            : " fills an Event member but the table says it is not decoded");
      if (member == nullptr) continue;
      for (const EventLayout* layout : FormatsOf(kind)) {
        SCOPED_TRACE(layout->system + ":" + layout->name + " " + std::string(field.name));
        const tracegen::FieldLayout format = layout->Field(field.name);
        ASSERT_TRUE(format.valid());
        EXPECT_EQ(IsStringField(*layout, field.name), member->string);
        if (member->string) continue;
        EXPECT_TRUE(format.size == 1 || format.size == 2 || format.size == 4 || format.size == 8)
            << "size " << format.size;
        if (!member->narrowed) {
          EXPECT_LE(static_cast<size_t>(format.size), member->bytes);
        } else {
          EXPECT_GT(static_cast<size_t>(format.size), member->bytes) << "not narrowed any more";
        }
      }
    }
  }
  for (const Member& member : members) {
    const std::span<const SchemaField> fields = SchemaOf(member.kind).fields;
    EXPECT_TRUE(std::ranges::any_of(
        fields, [&](const SchemaField& f) { return f.name == member.field && f.decoded; }))
        << member.field << " of kind " << static_cast<int>(member.kind) << " is not in the table";
  }
}

TEST(EventSchema, IrqVectorKindsCountOnlyInTheirSystem) {
  EXPECT_EQ(EventKindOf("irq_vectors", "local_timer_entry"), EventKind::kIrqVectorEntry);
  EXPECT_EQ(EventKindOf("irq_vectors", "reschedule_exit"), EventKind::kIrqVectorExit);
  EXPECT_EQ(EventKindOf("my_driver", "reschedule_exit"), EventKind::kOther);
  EXPECT_EQ(EventKindOf("sched", "sched_switch"), EventKind::kSchedSwitch);
  EXPECT_EQ(EventKindOf("irq_vectors", "not_a_vector_entry"), EventKind::kOther);
  EXPECT_EQ(EventKindOf("sched", "sched_stat_runtime"), EventKind::kOther);
}

}  // namespace
}  // namespace napiscope
