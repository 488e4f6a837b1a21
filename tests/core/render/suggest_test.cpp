#include "napiscope/suggest.h"

#include <gtest/gtest.h>

namespace napiscope {
namespace {

const std::vector<std::string> kCommands = {"report", "record", "info", "check", "diff"};

TEST(ClosestName, ATypoOrAPrefixNamesTheNearestKnownName) {
  EXPECT_EQ(ClosestName("repor", kCommands), "report");   // a prefix
  EXPECT_EQ(ClosestName("recrod", kCommands), "record");  // a swap
  EXPECT_EQ(ClosestName("reprot", kCommands), "report");
  EXPECT_EQ(ClosestName("recorde", kCommands), "record");  // an extra letter
  EXPECT_EQ(ClosestName("ifno", kCommands), "info");
  EXPECT_EQ(ClosestName("chekc", kCommands), "check");
}

TEST(ClosestName, NothingCloseIsNoSuggestion) {
  EXPECT_EQ(ClosestName("live", kCommands), "");
  EXPECT_EQ(ClosestName("zzzzzz", kCommands), "");
  EXPECT_EQ(ClosestName("diff", {}), "");
  // Two edits in a three-letter word are another word, not a typo.
  EXPECT_EQ(ClosestName("xml", {"text", "json", "html"}), "");
  EXPECT_EQ(ClosestName("jsn", {"text", "json", "html"}), "json");
}

// A name far longer than every known one is no typo of them, whatever its letters.
TEST(ClosestName, ANameFarLongerThanAnyIsNone) {
  EXPECT_EQ(ClosestName(std::string(1 << 20, 'r'), kCommands), "");
  EXPECT_EQ(ClosestName("report" + std::string(1 << 20, 'x'), kCommands), "");
  EXPECT_EQ(ClosestName("re", kCommands), "report");  // a prefix, however much shorter
}

TEST(DidYouMean, IsTheSentenceTailOrNothing) {
  EXPECT_EQ(DidYouMean("dif", kCommands), "; did you mean 'diff'?");
  EXPECT_EQ(DidYouMean("qqqqqq", kCommands), "");
}

}  // namespace
}  // namespace napiscope
