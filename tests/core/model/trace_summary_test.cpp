// TraceSummaryBuilder's counts per event name and CPU, including CPUs past the header's count
// (text traces name any CPU) and names interned after the first events.
#include <gtest/gtest.h>

#include "napiscope/trace_summary.h"

namespace napiscope {
namespace {

Event At(TimestampNs ts_ns, uint16_t cpu, StringId name, EventKind kind = EventKind::kOther) {
  Event event;
  event.ts_ns = ts_ns;
  event.cpu = cpu;
  event.name = name;
  event.kind = kind;
  return event;
}

TEST(TraceSummaryBuilder, CountsEachNameOnEachCpuAndWidensForCpusPastTheHeader) {
  TraceContext context;
  context.meta.cpus = 2;
  StringId skb = context.strings.Intern("netif_receive_skb");
  StringId sw = context.strings.Intern("sched_switch");
  TraceSummaryBuilder builder;
  builder.OnBegin(context);
  builder.OnEvent(At(100, 0, skb));
  builder.OnEvent(At(110, 1, skb));
  builder.OnEvent(At(120, 1, skb));
  builder.OnEvent(At(130, 0, 0, EventKind::kMissedEvents));  // not an event
  builder.OnEvent(At(140, 3, sw));  // CPU 3 in a 2-CPU header: the table widens
  builder.OnEvent(At(135, 0, sw));
  TraceSummary summary = builder.Finish(context);

  EXPECT_EQ(summary.events, 5);
  EXPECT_EQ(summary.first_ts_ns, 100);
  EXPECT_EQ(summary.last_ts_ns, 140);
  EXPECT_EQ(summary.events_per_cpu, (std::vector<int64_t>{2, 2, 0, 1}));
  ASSERT_EQ(summary.counts.size(), 2u);  // sorted by name
  EXPECT_EQ(summary.counts[0].name, "netif_receive_skb");
  EXPECT_EQ(summary.counts[0].total, 3);
  EXPECT_EQ(summary.counts[0].per_cpu, (std::vector<int64_t>{1, 2, 0, 0}));
  EXPECT_EQ(summary.counts[1].name, "sched_switch");
  EXPECT_EQ(summary.counts[1].total, 2);
  EXPECT_EQ(summary.counts[1].per_cpu, (std::vector<int64_t>{1, 0, 0, 1}));
}

}  // namespace
}  // namespace napiscope
