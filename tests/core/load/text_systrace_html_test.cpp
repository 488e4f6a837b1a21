// Systrace's HTML page: the ftrace text inside its <script class="trace-data"> blocks reads as
// the same text on its own; the viewer code and the JSON block around it are not lines to skip.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using ::napiscope::tracegen::CollectingSink;
using ::napiscope::tracegen::DescribeEvent;
using ::napiscope::tracegen::DescribeOptions;

struct Loaded {
  TraceContext context;
  std::vector<std::string> events;
  absl::Status status;
};

void Load(const std::string& path, Loaded* loaded) {
  CollectingSink sink;
  loaded->status = LoadTrace(path, loaded->context, sink);
  for (const Event& event : sink.events) {
    loaded->events.push_back(DescribeEvent(event, loaded->context.strings, DescribeOptions{}));
  }
}

TEST(SystraceHtml, TraceDataBlockReadsAsItsText) {
  Loaded html, text;
  Load(TestData("text/android-systrace.html"), &html);
  Load(TestData("text/android-systrace.txt"), &text);
  ASSERT_TRUE(html.status.ok()) << html.status;
  ASSERT_TRUE(text.status.ok()) << text.status;
  EXPECT_EQ(html.context.meta.format, TraceFormat::kFtraceText);
  EXPECT_EQ(html.context.meta.skipped_lines, 0)
      << ::testing::PrintToString(html.context.meta.warnings);
  EXPECT_EQ(html.context.meta.cpus, 4);
  ASSERT_EQ(html.events.size(), 14u);
  EXPECT_EQ(html.events, text.events);
}

TEST(SystraceHtml, PageWithoutFtraceTextIsAnError) {
  std::string dir = MakeTempDir();
  std::string path = dir + "/page.html";
  WriteFile(path,
            "<!DOCTYPE html>\n<html><body>\n"
            "  <script class=\"trace-data\" type=\"application/text\">\n"
            "{\"traceEvents\": []}\n  </script>\n</body></html>\n");
  Loaded loaded;
  Load(path, &loaded);
  EXPECT_FALSE(loaded.status.ok());
  EXPECT_THAT(std::string(loaded.status.message()),
              ::testing::HasSubstr("an HTML page with 1 systrace trace-data blocks and no ftrace "
                                   "event in them"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace napiscope
