// Files with options after which libtracecmd shifts the timestamps (here OFFSET, as
// `trace-cmd record --ts-offset` writes it) are read through libtracecmd, so napiscope gives
// the same times as trace-cmd instead of the raw ring-buffer ones.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

// The trace with its UNAME option turned, in place, into an OFFSET option of `offset_ns`.
std::string WithOffsetOption(const std::string& trace, int64_t offset_ns) {
  std::string shifted = trace;
  size_t uname = shifted.find("Linux tracegen");
  if (uname == std::string::npos || uname < 6) return "";
  size_t option = uname - 6;  // u16 id, u32 size, then the text
  if (shifted[option] != 5 || shifted[option + 1] != 0) return "";
  uint32_t size = 0;
  for (int i = 0; i < 4; ++i) {
    size |= uint32_t{static_cast<uint8_t>(shifted[option + 2 + i])} << (8 * i);
  }
  std::string text = std::to_string(offset_ns);
  if (text.size() + 1 > size) return "";
  shifted[option] = 7;  // TRACECMD_OPTION_OFFSET: a decimal string
  shifted.replace(uname, size, text + std::string(size - text.size(), '\0'));
  return shifted;
}

std::vector<Event> LoadEvents(const std::string& path) {
  TraceContext context;
  tracegen::CollectingSink sink;
  absl::Status status = LoadTrace(path, context, sink, LoadOptions{});
  EXPECT_TRUE(status.ok()) << status;
  return std::move(sink.events);
}

TEST(TraceDatTimeOptions, AnOffsetOptionShiftsEveryTimestampLikeLibtracecmd) {
  const std::string original = testing::TestData("scenarios/irq_threads_bouncing.dat");
  constexpr int64_t kOffsetNs = 1'000'000'000;
  std::string shifted = WithOffsetOption(testing::ReadFile(original), kOffsetNs);
  ASSERT_FALSE(shifted.empty()) << "no UNAME option to turn into OFFSET";
  std::string path = testing::MakeTempDir() + "/offset.dat";
  testing::WriteFile(path, shifted);

  std::vector<Event> want = LoadEvents(original);
  std::vector<Event> got = LoadEvents(path);
  ASSERT_FALSE(want.empty());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].ts_ns, want[i].ts_ns + kOffsetNs) << "event " << i;
    ASSERT_EQ(got[i].kind, want[i].kind) << "event " << i;
  }
}

}  // namespace
}  // namespace napiscope
