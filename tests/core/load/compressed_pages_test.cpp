// Damaged zstd CPU data (trace.dat v7 compression) is an error naming the CPU and the byte,
// never a crash or a silently short trace.
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "load/tracedat_header_reader.h"
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
    ASSERT_TRUE(internal::ReadTraceDatHeader(path_, "", &header_).ok());
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
                    HasSubstr("no zstd frame")));
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

// A chunk count below the chunks written would silently drop a CPU's data (all of it for a
// count of 0): the chunks read must fill the CPU's extent.
TEST_F(CompressedPagesTest, FewerChunksCountedThanWrittenIsCorrupt) {
  std::string damaged = trace_;
  PutU32(&damaged, cpu0_.offset, 0);
  absl::Status status = LoadDamaged(damaged);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("CPU 0"), HasSubstr("chunk count (0 read)"),
                    HasSubstr(absl::StrCat("bytes ", cpu0_.offset + 4, " to ",
                                           cpu0_.offset + 4 + cpu0_.size))));
}

// The chunk ends where the extent (its size plus the 4-byte count) ends, as trace-cmd writes
// it; a chunk that runs past its CPU's extent is corrupt even inside the file.
TEST_F(CompressedPagesTest, AChunkPastItsCpusDataIsCorrupt) {
  std::string damaged = trace_;
  uint64_t first_chunk = cpu0_.offset + 4;
  uint32_t compressed = 0;
  for (int i = 0; i < 4; ++i) {
    compressed |= static_cast<uint32_t>(static_cast<uint8_t>(damaged[first_chunk + i])) << (8 * i);
  }
  PutU32(&damaged, first_chunk, compressed + 64);  // still inside the file (CPU 1 follows)
  absl::Status status = LoadDamaged(damaged);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("CPU 0"), HasSubstr("past the end of the CPU's data")));
}

}  // namespace
}  // namespace napiscope
