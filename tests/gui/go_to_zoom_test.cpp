// Issue 66: Go to with one time, the whole trace in view, only moved marker A: the view (already
// the whole trace) could not centre there. It zooms in around the time as well.
#include <gtest/gtest.h>

#include "main_window.h"
#include "support/test_support.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

TEST(GoTo, OneTimeAtFullZoomCentresAndZoomsThere) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1400, 900);
  ASSERT_TRUE(window.OpenTraceAndWait(
      QString::fromStdString(testing::TestData("real/veth-threaded-napi.dat"))));
  const Timeline& timeline = window.trace()->timeline;
  TimestampNs span = timeline.end_ns() - timeline.start_ns();
  ASSERT_EQ(window.timeline()->state().to_ns - window.timeline()->state().from_ns, span);
  TimestampNs at = timeline.start_ns() + span / 3;
  QString error;
  ASSERT_TRUE(window.GoToTime("+" + QString::number(span / 3) + "ns", &error))
      << error.toStdString();
  const TimelineViewState& state = window.timeline()->state();
  EXPECT_EQ(*state.marker_a, at);
  EXPECT_EQ(state.to_ns - state.from_ns, span / 50);
  EXPECT_LE(std::abs((state.from_ns + state.to_ns) / 2 - at), 1);
  // Zoomed in already: centred, the zoom kept.
  TimestampNs zoomed = state.to_ns - state.from_ns;
  ASSERT_TRUE(window.GoToTime("+" + QString::number(span / 2) + "ns", &error));
  EXPECT_EQ(window.timeline()->state().to_ns - window.timeline()->state().from_ns, zoomed);
  EXPECT_LE(std::abs((window.timeline()->state().from_ns + window.timeline()->state().to_ns) / 2 -
                     (timeline.start_ns() + span / 2)),
            1);
}

}  // namespace
}  // namespace napiscope::gui
