// Words shared by the findings and every renderer.
#include "napiscope/phrasing.h"

#include <gtest/gtest.h>

namespace napiscope {
namespace {

// "1 wakeups", "changed CPU 1 times", "1 polls" were printed where a count was one.
TEST(Counted, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(Counted(1, "wakeup"), "1 wakeup");
  EXPECT_EQ(Counted(0, "wakeup"), "0 wakeups");
  EXPECT_EQ(Counted(2, "time"), "2 times");
  EXPECT_EQ(Counted(1818176, "wait"), "1818176 waits");
}

TEST(FormatPriority, RealTimeAndNiceAsPeopleWriteThem) {
  EXPECT_EQ(FormatPriority(1), "RT 98");
  EXPECT_EQ(FormatPriority(120), "");
  EXPECT_EQ(FormatPriority(115), "nice -5");
}

}  // namespace
}  // namespace napiscope
