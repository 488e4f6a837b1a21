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

// Issue 66: the recorder's own threads appeared in blame as "napiscope (pid 5977, nice 10)
// 2.33 ms", a holder people chased; every sentence and table that names a task says it.
TEST(DescribeTask, NapiscopesOwnThreadsAreMarkedAsTheRecorder) {
  EXPECT_EQ(DescribeTask(5977, "napiscope", 130), "napiscope (pid 5977, nice 10, the recorder)");
  EXPECT_EQ(DescribeTask(5978, "napiscope", 120), "napiscope (pid 5978, the recorder)");
  EXPECT_EQ(DescribeTask(90, "iperf3", 120), "iperf3 (pid 90)");
  EXPECT_EQ(DescribeTask(91, "napiscope-gui", 120), "napiscope-gui (pid 91)");
  BlameItem holder;
  holder.kind = ContextKind::kTask;
  holder.pid = 5977;
  holder.prio = 130;
  holder.name = "napiscope";
  holder.time_ns = 2'330'000;
  EXPECT_EQ(DescribeBlameHolder(holder), "napiscope (pid 5977, nice 10, the recorder)");
  EXPECT_EQ(DescribeWakeHolder(holder, 4'660'000, 1),
            "napiscope (pid 5977, nice 10, the recorder) 2.33 ms (50%, a lower-priority task that "
            "could not be preempted)");
}

}  // namespace
}  // namespace napiscope
