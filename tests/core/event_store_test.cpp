#include <vector>

#include <gtest/gtest.h>

#include "napiscope/event_store.h"
#include "napiscope/loader.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

class AllEvents : public EventSink {
 public:
  void OnEvent(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

TEST(EventStore, GivesBackEveryEventOfARealTraceInPerCpuOrder) {
  EventStore store;
  AllEvents all;
  FanoutSink fanout;
  fanout.Add(&store);
  fanout.Add(&all);
  TraceContext context;
  ASSERT_TRUE(LoadTrace(testing::TestData("real/veth-threaded-napi.dat"), context, fanout).ok());
  ASSERT_EQ(store.total(), all.events.size());
  std::vector<size_t> next(store.cpus(), 0);
  for (const Event& expected : all.events) {
    size_t& i = next[expected.cpu];
    ASSERT_LT(i, store.size(expected.cpu));
    Event got = store.Get(expected.cpu, i);
    ASSERT_TRUE(SameEventContent(got, expected))
        << "cpu " << expected.cpu << " index " << i << " kind "
        << EventKindName(expected.kind);
    ++i;
  }
  // net_dev_xmit dominates this trace: 22 bytes of columns + 12 of fields per event.
  double bytes_per_event = static_cast<double>(store.BytesUsed()) / store.total();
  EXPECT_LT(bytes_per_event, 40.0);
  EXPECT_GT(bytes_per_event, 22.0);
}

TEST(EventStore, LowerBoundFindsTheFirstEventAtOrAfterATime) {
  EventStore store;
  TraceContext context;
  ASSERT_TRUE(LoadTrace(testing::TestData("real/idle.dat"), context, store).ok());
  ASSERT_GT(store.size(0), 10u);
  TimestampNs t5 = store.Timestamp(0, 5);
  size_t index = store.LowerBound(0, t5);
  EXPECT_LE(index, 5u);
  EXPECT_EQ(store.Timestamp(0, index), t5);
  if (index > 0) {
    EXPECT_LT(store.Timestamp(0, index - 1), t5);
  }
  EXPECT_EQ(store.LowerBound(0, store.Timestamp(0, store.size(0) - 1) + 1), store.size(0));
}

}  // namespace
}  // namespace napiscope
