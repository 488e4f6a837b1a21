// The output file: direct I/O (where the file system allows it) gathers pieces into aligned
// blocks and ends with a partial one; the file must hold exactly the pieces, in order.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// A failed export removes the half-written file it made, but never what is not a regular file:
// run as root with `-o /dev/null`, removing the output deleted /dev/null.
TEST(PacketWriter, AbandonRemovesARegularFileAndLeavesAPipe) {
  std::string dir = testing::MakeTempDir();
  std::string file = dir + "/half.pftrace";
  PacketWriter regular;
  ASSERT_TRUE(regular.Open(file).ok());
  std::string_view piece = "half";
  regular.Write(std::span<const std::string_view>(&piece, 1));
  regular.Abandon();
  struct stat info {};
  EXPECT_NE(lstat(file.c_str(), &info), 0) << "the half-written file is still there";

  std::string pipe = dir + "/pipe";
  ASSERT_EQ(mkfifo(pipe.c_str(), 0600), 0);
  int reader = open(pipe.c_str(), O_RDONLY | O_NONBLOCK);  // lets the writer's open return
  ASSERT_GE(reader, 0);
  PacketWriter piped;
  ASSERT_TRUE(piped.Open(pipe).ok());
  piped.Write(std::span<const std::string_view>(&piece, 1));
  piped.Abandon();
  close(reader);
  ASSERT_EQ(lstat(pipe.c_str(), &info), 0) << "the pipe was removed";
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

}  // namespace
}  // namespace napiscope::perfetto_export
