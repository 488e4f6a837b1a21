// CpuSet: each CPU once, ascending, whatever the order they are added in.
#include <gtest/gtest.h>

#include "analysis/cpu_set.h"

namespace napiscope::internal {
namespace {

TEST(CpuSet, KeepsEachCpuOnceInAscendingOrder) {
  CpuSet cpus;
  for (int cpu : {7, 3, 7, 255, 0, 3}) cpus.Insert(cpu);
  EXPECT_EQ(cpus.values(), (std::vector<int>{0, 3, 7, 255}));
  EXPECT_FALSE(cpus.Insert(255));  // already in
  CpuSet more = cpus;
  more.InsertAll(std::vector<int>{4, 3});
  EXPECT_EQ(more.values(), (std::vector<int>{0, 3, 4, 7, 255}));
  EXPECT_EQ(cpus.values().size(), 4u);  // the copy grew, not the original
}

}  // namespace
}  // namespace napiscope::internal
