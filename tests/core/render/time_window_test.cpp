#include "napiscope/time_window.h"

#include <gtest/gtest.h>

namespace napiscope {
namespace {

TEST(TimeWindow, ParsesAbsoluteSecondsAndOffsetsFromTheStart) {
  TimeBound bound;
  std::string error;
  ASSERT_TRUE(ParseTimeBound("705.4123", &bound, &error)) << error;
  EXPECT_FALSE(bound.from_trace_start);
  EXPECT_EQ(bound.ns, 705412300000);
  EXPECT_EQ(ResolveTimeBound(bound, 700000000000), 705412300000);
  ASSERT_TRUE(ParseTimeBound("+100ms", &bound, &error)) << error;
  EXPECT_TRUE(bound.from_trace_start);
  EXPECT_EQ(bound.ns, 100000000);
  EXPECT_EQ(ResolveTimeBound(bound, 705340000000), 705440000000);
  ASSERT_TRUE(ParseTimeBound("+1.5s", &bound, &error));
  EXPECT_EQ(bound.ns, 1500000000);
  ASSERT_TRUE(ParseTimeBound("705412300000ns", &bound, &error));
  EXPECT_EQ(bound.ns, 705412300000);
  ASSERT_TRUE(ParseTimeBound("@705.4123", &bound, &error));
  EXPECT_FALSE(bound.from_trace_start);
  EXPECT_EQ(bound.ns, 705412300000);
  for (const char* bad : {"", "+", "+1.5", "1.2.3", "-5", "+-1ms", "705.4123 ", "abc", "+1.5ns", "@+1ms", "+@1ms", "@"}) {
    error.clear();
    EXPECT_FALSE(ParseTimeBound(bad, &bound, &error)) << bad;
    EXPECT_EQ(error.find("'" + std::string(bad) + "' is not a time: give trace seconds"), 0u)
        << error;
  }
}

TEST(TimeWindow, EmptyOrOutsideWindowsNameTheTraceSpan) {
  TimestampNs first = 705340000000, last = 705680000000;
  AnalysisWindow inside{705400000000, 705500000000};
  EXPECT_EQ(CheckWindowInTrace(inside, first, last), "");
  AnalysisWindow overlapping{705000000000, 705400000000};
  EXPECT_EQ(CheckWindowInTrace(overlapping, first, last), "");
  AnalysisWindow before{1000000000, 2000000000};
  EXPECT_EQ(CheckWindowInTrace(before, first, last),
            "the window 1.000000 .. 2.000000 is outside the trace, which spans 705.340000 .. "
            "705.680000 (340.00 ms)");
  AnalysisWindow after;
  after.from_ns = 706000000000;
  EXPECT_EQ(CheckWindowInTrace(after, first, last),
            "the window 706.000000 .. end is outside the trace, which spans 705.340000 .. "
            "705.680000 (340.00 ms)");
  AnalysisWindow reversed{705600000000, 705500000000};
  EXPECT_EQ(CheckWindowInTrace(reversed, first, last),
            "the window 705.600000 .. 705.500000 is empty (it ends before it begins); the trace "
            "spans 705.340000 .. 705.680000 (340.00 ms)");
  AnalysisWindow at_last_event{last, last};
  EXPECT_EQ(CheckWindowInTrace(at_last_event, first, last), "");
}

}  // namespace
}  // namespace napiscope
