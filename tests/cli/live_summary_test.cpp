// The summary `live` prints each interval and once stopped.
#include "live_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace napiscope::cli {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

// Without a finding, "none yet" while tracing and "none" once stopped: the stopped summary
// said "none yet" just above the final report's "findings: none".
TEST(LiveSummary, NoFindingIsNoneOnceStopped) {
  Report report;
  std::vector<LiveNapiCounts> napi(2);
  LiveSummaryInput input{.report = &report,
                         .napi = &napi,
                         .elapsed_s = 1.0,
                         .events = 10,
                         .instance = "napiscope-1",
                         .final = false,
                         .width = 80};
  EXPECT_THAT(LiveSummaryText(input), EndsWith("\nFindings:\n  none yet\n"));
  input.final = true;
  std::string stopped = LiveSummaryText(input);
  EXPECT_THAT(stopped, HasSubstr("napiscope live (stopped): 1.0 s, 10 events"));
  EXPECT_THAT(stopped, EndsWith("\nFindings:\n  none\n"));
}

}  // namespace
}  // namespace napiscope::cli
