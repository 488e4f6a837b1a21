// Damaged zstd CPU data (trace.dat v7 compression) is an error naming the CPU and the byte,
// never a crash or a silently short trace.
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "load/tracedat_header.h"
#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class CompressedPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TestData("real/idle.dat");
    ASSERT_TRUE(internal::ReadTraceDatHeader(path_, &header_).ok());
    ASSERT_EQ(header_.compression.rfind("zstd", 0), 0u) << header_.compression;
    ASSERT_FALSE(header_.top_buffer.empty());
    cpu0_ = header_.top_buffer[0];
    ASSERT_EQ(cpu0_.cpu, 0);
    trace_ = testing::ReadFile(path_);
  }

  // Loads `content` written to a file; the status of the load.
  absl::Status LoadDamaged(const std::string& content) {
    std::string damaged = testing::MakeTempDir() + "/damaged.dat";
    testing::WriteFile(damaged, content);
    TraceContext context;
    tracegen::CollectingSink sink;
    return LoadTrace(damaged, context, sink, LoadOptions{});
  }

  void PutU32(std::string* bytes, uint64_t offset, uint32_t value) {
    for (int i = 0; i < 4; ++i) (*bytes)[offset + i] = static_cast<char>(value >> (8 * i));
  }

  std::string path_;
  std::string trace_;
  internal::TraceDatHeader header_;
  internal::CpuDataExtent cpu0_;
};

TEST_F(CompressedPagesTest, TheUndamagedFileLoads) {
  EXPECT_TRUE(LoadDamaged(trace_).ok());
}

TEST_F(CompressedPagesTest, ScrambledChunkBytesDoNotDecompress) {
  std::string damaged = trace_;
  uint64_t first_chunk = cpu0_.offset + 4;
  for (uint64_t i = first_chunk + 8; i < first_chunk + 40; ++i) damaged[i] ^= 0x5a;
  absl::Status status = LoadDamaged(damaged);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("CPU 0"), HasSubstr(absl::StrCat("byte ", first_chunk)),
                    HasSubstr("does not decompress")));
}

TEST_F(CompressedPagesTest, AChunkLargerThanTheFileIsCorrupt) {
  std::string damaged = trace_;
  PutU32(&damaged, cpu0_.offset + 4, 0x7fffffff);
  absl::Status status = LoadDamaged(damaged);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("CPU 0"), HasSubstr("claims 2147483647 bytes"),
                    HasSubstr("corrupt chunk")));
}

TEST_F(CompressedPagesTest, MoreChunksCountedThanWrittenIsCorrupt) {
  std::string damaged = trace_;
  PutU32(&damaged, cpu0_.offset, 1000);  // the padding after the last chunk reads as a chunk
  absl::Status status = LoadDamaged(damaged);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("CPU 0"), HasSubstr("corrupt chunk")));
}

TEST_F(CompressedPagesTest, FewerChunksCountedReadsOnlyThoseAndStopsCleanly) {
  std::string damaged = trace_;
  PutU32(&damaged, cpu0_.offset, 0);
  TraceContext whole, none;
  tracegen::CollectingSink all_events, fewer_events;
  ASSERT_TRUE(LoadTrace(path_, whole, all_events, LoadOptions{}).ok());
  std::string path = testing::MakeTempDir() + "/no-cpu0.dat";
  testing::WriteFile(path, damaged);
  ASSERT_TRUE(LoadTrace(path, none, fewer_events, LoadOptions{}).ok());
  ASSERT_GT(all_events.events.size(), fewer_events.events.size());
  for (const Event& event : fewer_events.events) EXPECT_NE(event.cpu, 0);
}

}  // namespace
}  // namespace napiscope
