#include "live/merge_horizon.h"

#include <gtest/gtest.h>

namespace napiscope::internal {
namespace {

TEST(MergeHorizon, CpusReadToTheirLastPageMergeUpToTheCommittedTime) {
  EXPECT_EQ(MergeHorizon(1000, {400, 900}, {true, true}), 1000);
  EXPECT_EQ(MergeHorizon(1000, {}, {}), 1000);
}

// A busy CPU whose read stopped at the page cap has earlier events than the others' newest
// still in its ring buffer: nothing after its newest event read may be merged yet.
TEST(MergeHorizon, ACpuLeftWithPagesHoldsTheOthersAtItsNewestEventRead) {
  EXPECT_EQ(MergeHorizon(1000, {400, 900}, {false, true}), 400);
  EXPECT_EQ(MergeHorizon(1000, {400, 300}, {false, false}), 300);
  EXPECT_EQ(MergeHorizon(1000, {1200, 900}, {false, true}), 1000);
  EXPECT_EQ(MergeHorizon(1000, {-1, 900}, {false, true}), -1);  // nothing read from it yet
}

}  // namespace
}  // namespace napiscope::internal
