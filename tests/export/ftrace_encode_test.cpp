// The export encodes FtraceEvents without message objects; its bytes must be those the generated
// classes of perfetto_trace.proto write for the same event, for every kind of event.
#include <gtest/gtest.h>

#include <vector>

#include "ftrace_event_encode.h"
#include "ftrace_event_fill.h"

namespace napiscope::perfetto_export {
namespace {

std::vector<Event> OneOfEachKind(StringTable& strings) {
  std::vector<Event> events;
  auto add = [&](EventKind kind, const char* name) -> Event& {
    Event& e = events.emplace_back();
    e.ts_ns = 1'553'278'955'000'000 + static_cast<int64_t>(events.size());
    e.pid = 4242;
    e.cpu = 3;
    e.kind = kind;
    e.flags = 0x18;
    e.name = strings.Intern(name);
    return e;
  };
  StringId comm = strings.Intern("irq/33-eth0"), other = strings.Intern("swapper/3");
  add(EventKind::kSchedSwitch, "sched_switch").sched_switch = {17, 0, 120, -1, 0x100, comm, other};
  add(EventKind::kSchedWaking, "sched_waking").wake = {77, 49, 2, comm};
  add(EventKind::kSchedWakeup, "sched_wakeup").wake = {77, 49, -1, comm};
  add(EventKind::kSchedWakeupNew, "sched_wakeup_new").wake = {78, 120, 0, other};
  add(EventKind::kSchedMigrateTask, "sched_migrate_task").migrate = {77, 49, 1, 2, comm};
  add(EventKind::kSchedPiSetprio, "sched_pi_setprio").pi = {77, 120, 49, comm};
  add(EventKind::kSchedProcessFork, "sched_process_fork").fork = {1, 79, other};
  add(EventKind::kSchedProcessExit, "sched_process_exit").exit = {79, 120, other};
  add(EventKind::kIrqHandlerEntry, "irq_handler_entry").irq = {33, 0, strings.Intern("eth0")};
  add(EventKind::kIrqHandlerExit, "irq_handler_exit").irq = {33, 1, 0};
  add(EventKind::kSoftirqRaise, "softirq_raise").softirq = {3};
  add(EventKind::kSoftirqEntry, "softirq_entry").softirq = {3};
  add(EventKind::kSoftirqExit, "softirq_exit").softirq = {3};
  add(EventKind::kNapiPoll, "napi_poll").napi = {0xffff888104835800, strings.Intern("va"), 64, 64};
  add(EventKind::kNetifReceiveSkb, "netif_receive_skb").net = {strings.Intern("vb"), 1514, 0};
  add(EventKind::kNetifRx, "netif_rx").net = {strings.Intern("vb"), 60, 0};
  add(EventKind::kNetDevXmit, "net_dev_xmit").net = {strings.Intern("va"), 1514, -22};
  add(EventKind::kIrqVectorEntry, "local_timer_entry").irq = {236, 0, 0};
  add(EventKind::kIrqVectorExit, "local_timer_exit").irq = {236, 0, 0};
  add(EventKind::kIrqVectorEntry, "reschedule_entry").irq = {253, 0, 0};
  add(EventKind::kIrqVectorExit, "call_function_single_exit").irq = {251, 0, 0};
  add(EventKind::kOther, "tasklet_entry");
  return events;
}

TEST(FtraceEncode, BytesEqualTheGeneratedClassesForEveryKind) {
  StringTable strings;
  ProtoWriter encoded;
  std::vector<Event> events = OneOfEachKind(strings);
  for (const Event& event : events) {
    perfetto::protos::FtraceEvent reference;
    FillFtraceEvent(event, strings, &reference);
    encoded.Clear();
    EncodeFtraceEvent(event, strings, &encoded);
    EXPECT_EQ(encoded.bytes(), reference.SerializeAsString()) << strings.Get(event.name) << "\n"
                                                              << reference.DebugString();
  }
}

TEST(FtraceEncode, DecodesToTheEventsFields) {
  StringTable strings;
  ProtoWriter encoded;
  std::vector<Event> events = OneOfEachKind(strings);
  EncodeFtraceEvent(events[0], strings, &encoded);
  perfetto::protos::FtraceEvent decoded;
  ASSERT_TRUE(decoded.ParseFromString(std::string(encoded.bytes())));
  EXPECT_EQ(decoded.timestamp(), static_cast<uint64_t>(events[0].ts_ns));
  EXPECT_EQ(decoded.common_flags(), 0x18u);
  EXPECT_EQ(decoded.sched_switch().prev_comm(), "irq/33-eth0");
  EXPECT_EQ(decoded.sched_switch().next_prio(), -1);
  EXPECT_EQ(decoded.sched_switch().prev_state(), 0x100);
}

}  // namespace
}  // namespace napiscope::perfetto_export
