// The text loader on garbage, truncated, mixed and compressed input, and its progress/cancel.
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <absl/strings/str_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::ReadFile;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::WriteFile;
using ::napiscope::tracegen::CollectingSink;
using ::napiscope::tracegen::DescribeEvent;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// `count` softirq events on 2 CPUs, 1 us apart, in trace-cmd report layout.
std::string ReportText(int count) {
  std::string text = "cpus=2\n";
  for (int i = 0; i < count; ++i) {
    absl::StrAppendFormat(&text,
                          "          iperf3-%-5d [%03d]  %d.%09d: softirq_raise:        vec=%d "
                          "[action=X]\n",
                          100 + i % 7, i % 2, 10 + i / 1'000'000, (i % 1'000'000) * 1000, i % 10);
  }
  return text;
}

class TextRobustnessTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    WriteFile(path, content);
    return path;
  }

  absl::Status LoadPath(const std::string& path, const LoadOptions& options = {}) {
    CollectingSink sink;
    context_ = TraceContext();
    absl::Status status = LoadTrace(path, context_, sink, options);
    events_ = std::move(sink.events);
    return status;
  }

  std::vector<std::string> Described() const {
    std::vector<std::string> lines;
    for (const Event& event : events_) lines.push_back(DescribeEvent(event, context_.strings));
    return lines;
  }

  std::string dir_;
  TraceContext context_;
  std::vector<Event> events_;
};

TEST_F(TextRobustnessTest, ProseIsNotATrace) {
  std::string path = Write("notes.txt", "Dear list,\nthe NIC stalls under load.\nThanks\n");
  absl::Status status = LoadPath(path);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), StartsWith(path + ": "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("not a trace"));
}

TEST_F(TextRobustnessTest, HeaderWithoutEventsIsAnErrorNamingTheFirstBadLine) {
  std::string path = Write("empty.txt",
                           "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n"
                           "this line is not an event\n");
  absl::Status status = LoadPath(path);
  ASSERT_FALSE(status.ok());
  std::string message(status.message());
  EXPECT_THAT(message, HasSubstr("no event could be parsed from 4 lines"));
  EXPECT_THAT(message, HasSubstr("line 4: not an event line: 'this line is not an event'"));
}

// trace-cmd report of a CPU or buffer without events prints its header alone ("cpus=2"): said
// so, where it read "no event could be parsed from 1 lines".
TEST_F(TextRobustnessTest, HeadersAloneSayTheTextHasNoEventLine) {
  const std::pair<const char*, const char*> kCases[] = {
      {"cpus=2\n", "1 line"},
      {"# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n", "3 lines"}};
  for (const auto& [text, lines] : kCases) {
    std::string path = Write("headers.txt", text);
    absl::Status status = LoadPath(path);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(), path +
                                    ": no event line: the text has only headers, lost-events "
                                    "marks or blank lines (" +
                                    lines + ")");
  }
}

TEST_F(TextRobustnessTest, MixedGarbageIsSkippedAndReported) {
  std::string good = ReportText(3);
  size_t second = good.find('\n', good.find('\n') + 1) + 1;
  std::string text = good.substr(0, second) + "garbage one\n" + std::string("\x01\x02\0\xff", 4) +
                     "\n" + good.substr(second) +
                     "  iperf3-1 [000] 1.000000: sched_switch: no fields here\n";
  ASSERT_TRUE(LoadPath(Write("mixed.txt", text)).ok());
  EXPECT_EQ(events_.size(), 3u);
  EXPECT_EQ(context_.meta.skipped_lines, 3);
  ASSERT_EQ(context_.meta.warnings.size(), 1u);
  EXPECT_THAT(context_.meta.warnings[0], HasSubstr("3 lines were not understood"));
  EXPECT_THAT(context_.meta.warnings[0], HasSubstr("lines 3, 4, 7"));
}

TEST_F(TextRobustnessTest, MalformedFieldsOfAKnownEventAreSkippedWithTheReason) {
  std::string text =
      ReportText(2) + "  iperf3-1 [000] 10.000005: sched_switch: nonsense without arrow\n";
  ASSERT_TRUE(LoadPath(Write("fields.txt", text)).ok());
  EXPECT_EQ(events_.size(), 2u);
  EXPECT_EQ(context_.meta.skipped_lines, 1);
  EXPECT_THAT(context_.meta.warnings[0], HasSubstr("line 4: fields do not read as sched_switch"));
}

TEST_F(TextRobustnessTest, TruncatedFileKeepsEveryCompleteLine) {
  std::string text = ReportText(100);
  for (size_t cut : {text.size() - 5, text.size() - 40, text.size() / 2}) {
    ASSERT_TRUE(LoadPath(Write("cut.txt", text.substr(0, cut))).ok()) << "cut at " << cut;
    // Lines after the "cpus=2" header; the last one may be cut short.
    int64_t complete = std::count(text.begin(), text.begin() + cut, '\n') - 1;
    int64_t partial = text[cut - 1] == '\n' ? 0 : 1;
    int64_t events = static_cast<int64_t>(events_.size());
    EXPECT_GE(events, complete) << "cut at " << cut;
    EXPECT_EQ(events + context_.meta.skipped_lines, complete + partial) << "cut at " << cut;
  }
}

TEST_F(TextRobustnessTest, RandomDamageNeverCrashes) {
  std::string text = ReportText(300);
  std::mt19937 random(1234);
  for (int round = 0; round < 200; ++round) {
    std::string damaged = text;
    int flips = 1 + static_cast<int>(random() % 50);
    for (int i = 0; i < flips; ++i) {
      damaged[random() % damaged.size()] = static_cast<char>(random());
    }
    absl::Status status = LoadPath(Write("damaged.txt", damaged));
    if (!status.ok()) continue;
    // Every line is an event, a skipped line, or a header/marker line; none counts twice.
    int64_t lines = std::count(damaged.begin(), damaged.end(), '\n');
    int64_t events = static_cast<int64_t>(events_.size() - context_.missed.size());
    EXPECT_LE(events + context_.meta.skipped_lines, lines) << "round " << round;
    EXPECT_GE(events, 300 - 2 * flips) << "round " << round;
  }
}

class CompressedTextTest
    : public TextRobustnessTest,
      public ::testing::WithParamInterface<std::pair<const char*, const char*>> {};

TEST_P(CompressedTextTest, LoadsLikeThePlainText) {
  const auto& [tool, suffix] = GetParam();
  if (!HaveProgram(tool)) GTEST_SKIP() << tool << " is not installed";
  std::string plain = Write("trace.txt", ReportText(20000));
  ASSERT_TRUE(LoadPath(plain).ok());
  std::vector<std::string> want = Described();
  std::string packed = plain + suffix;
  ASSERT_EQ(RunCommand(std::string(tool) + " -k " + plain).exit_code, 0);
  // Detection is by content: the name says nothing.
  std::string renamed = dir_ + "/renamed.trace";
  std::filesystem::rename(packed, renamed);
  ASSERT_TRUE(LoadPath(renamed).ok());
  EXPECT_EQ(context_.meta.compression, tool);
  EXPECT_EQ(Described(), want);
  EXPECT_TRUE(context_.meta.warnings.empty()) << context_.meta.warnings[0];

  // A cut-off compressed file keeps what it holds and says it ended early.
  std::string whole = ReadFile(renamed);
  ASSERT_TRUE(LoadPath(Write("cut.trace", whole.substr(0, whole.size() * 2 / 3))).ok());
  EXPECT_GT(events_.size(), 1000u);
  EXPECT_LT(events_.size(), want.size());
  EXPECT_THAT(context_.meta.warnings, ::testing::Contains(HasSubstr("ends early")));
}

TEST_P(CompressedTextTest, BytesAfterTheLastStreamEndTheReadNotTheLoad) {
  const auto& [tool, suffix] = GetParam();
  if (!HaveProgram(tool)) GTEST_SKIP() << tool << " is not installed";
  std::string plain = Write("trace.txt", ReportText(5000));
  ASSERT_EQ(RunCommand(std::string(tool) + " -k " + plain).exit_code, 0);
  std::string packed = ReadFile(plain + suffix) + "trailing junk\n";
  ASSERT_TRUE(LoadPath(Write("junk.trace", packed)).ok());
  EXPECT_EQ(events_.size(), 5000u);
}

INSTANTIATE_TEST_SUITE_P(Tools, CompressedTextTest,
                         ::testing::Values(std::make_pair("gzip", ".gz"),
                                           std::make_pair("zstd", ".zst"),
                                           std::make_pair("xz", ".xz")),
                         [](const auto& param_info) {
                           return std::string(param_info.param.first);
                         });

TEST_F(TextRobustnessTest, CorruptCompressedDataStopsWithAWarning) {
  if (!HaveProgram("gzip")) GTEST_SKIP() << "gzip is not installed";
  std::string plain = Write("trace.txt", ReportText(50000));
  ASSERT_EQ(RunCommand("gzip -k " + plain).exit_code, 0);
  std::string packed = ReadFile(plain + ".gz");
  for (size_t i = packed.size() / 2; i < packed.size() / 2 + 64; ++i) packed[i] ^= 0x5a;
  ASSERT_TRUE(LoadPath(Write("bad.gz", packed)).ok());
  EXPECT_GT(events_.size(), 0u);
  EXPECT_LT(events_.size(), 50000u);
  EXPECT_THAT(context_.meta.warnings, ::testing::Contains(HasSubstr("gzip data is corrupt")));
}

TEST_F(TextRobustnessTest, ProgressRisesToOneAndCancelStops) {
  std::string path = Write("big.txt", ReportText(300000));
  std::vector<double> fractions;
  LoadOptions options;
  options.progress = [&](double fraction) { fractions.push_back(fraction); };
  ASSERT_TRUE(LoadPath(path, options).ok());
  ASSERT_GE(fractions.size(), 4u);  // every 65536 lines, and once at the end
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_GT(fractions.front(), 0.0);
  EXPECT_EQ(fractions.back(), 1.0);

  std::atomic<bool> cancel{true};
  options.cancel = &cancel;
  absl::Status status = LoadPath(path, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_LT(events_.size(), 300000u);
}

TEST_F(TextRobustnessTest, DetectsTheTextFormatFromContent) {
  TraceFormat format;
  ASSERT_TRUE(DetectTraceFormat(Write("a.dat", ReportText(3)), &format).ok());
  EXPECT_EQ(format, TraceFormat::kTraceCmdText);
  ASSERT_TRUE(DetectTraceFormat(Write("b.dat",
                                      "          <idle>-0       [001] d.h1.   160.740307: "
                                      "softirq_raise: vec=9 [action=RCU]\n"),
                                &format)
                  .ok());
  EXPECT_EQ(format, TraceFormat::kFtraceText);
}

}  // namespace
}  // namespace napiscope
