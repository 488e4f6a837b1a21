// The output file: direct I/O (where the file system allows it) gathers pieces into aligned
// blocks and ends with a partial one; the file must hold exactly the pieces, in order.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "packet_writer.h"
#include "support/test_support.h"

namespace napiscope::perfetto_export {
namespace {

// Pieces of odd sizes, some larger than the gathering buffer, in calls of several pieces.
void ExpectFileHoldsThePieces(size_t total_bytes) {
  std::string path = testing::MakeTempDir() + "/pieces.pftrace";
  std::string expected;
  {
    PacketWriter out;
    ASSERT_TRUE(out.Open(path).ok());
    std::vector<std::string> call;
    size_t size = 1;
    unsigned seed = 7;
    while (expected.size() < total_bytes) {
      std::string piece(size, '\0');
      for (char& c : piece) c = static_cast<char>((seed = seed * 1103515245 + 12345) >> 16);
      expected += piece;
      call.push_back(std::move(piece));
      if (call.size() == 3) {
        std::vector<std::string_view> views(call.begin(), call.end());
        out.Write(views);
        call.clear();
      }
      size = size * 7 % 1'500'007 + 1;  // 1 byte to about 1.5 MB
    }
    std::vector<std::string_view> views(call.begin(), call.end());
    out.Write(views);
    EXPECT_EQ(out.bytes(), static_cast<int64_t>(expected.size()));
    ASSERT_TRUE(out.Close().ok());
  }
  std::string written = testing::ReadFile(path);
  EXPECT_EQ(written.size(), expected.size());
  EXPECT_TRUE(written == expected);
}

TEST(PacketWriter, FileHoldsThePiecesLessThanABlock) { ExpectFileHoldsThePieces(3000); }

TEST(PacketWriter, FileHoldsThePiecesOfSeveralBuffers) { ExpectFileHoldsThePieces(5'300'001); }

TEST(PacketWriter, NothingWrittenLeavesAnEmptyFile) {
  std::string path = testing::MakeTempDir() + "/empty.pftrace";
  PacketWriter out;
  ASSERT_TRUE(out.Open(path).ok());
  ASSERT_TRUE(out.Close().ok());
  EXPECT_EQ(testing::ReadFile(path).size(), 0u);
}

}  // namespace
}  // namespace napiscope::perfetto_export
