// Issue 66: applying a filter jumped the event list to the trace's first match; it stays at the
// selected event (marker A): the first kept row at or after its time.
#include <gtest/gtest.h>

#include "event_list.h"
#include "gui_test_support.h"

namespace napiscope::gui {
namespace {

using testing::LoadTestTrace;

TEST(EventListFilter, StaysAtTheSelectedEvent) {
  auto trace = LoadTestTrace("real/veth-threaded-napi.dat");
  ASSERT_NE(trace, nullptr);
  EventListPanel panel;
  panel.resize(1000, 400);
  panel.SetTrace(trace);
  TimestampNs middle = (trace->timeline.start_ns() + trace->timeline.end_ns()) / 2;
  panel.ShowTime(middle);  // as marker A set on the timeline selects it
  ASSERT_TRUE(panel.SelectedEvent().has_value());
  TimestampNs marker = panel.SelectedEvent()->ts_ns;
  ASSERT_TRUE(panel.SetFilterText("event==sched_switch"));
  std::optional<Event> kept = panel.SelectedEvent();
  ASSERT_TRUE(kept.has_value());
  EXPECT_GE(kept->ts_ns, marker);
  EXPECT_LT(kept->ts_ns - marker, 20'000'000);  // near it, not at the trace's start
  EXPECT_GT(panel.TopRow(), 0);
}

}  // namespace
}  // namespace napiscope::gui
