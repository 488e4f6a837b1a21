// Blocks reach the file in the order of their keys, each once nothing before it can still come:
// not before the analysis' progress has passed its stamp, not while a writer's open block with
// an earlier stamp is unfinished; a BlockWriter ends its block a millisecond of trace time after
// its first packet.
#include <gtest/gtest.h>

#include <string>

#include "block_queue.h"
#include "support/test_support.h"

namespace napiscope::perfetto_export {
namespace {

// A block of 2 MiB of `fill`: two of them make a writev's worth, so a queue on one thread
// writes what it released at once.
ProtoWriter BigBlock(BlockQueue& queue, char fill) {
  ProtoWriter block = queue.Take(0);
  block.Raw(std::string(2 << 20, fill));
  return block;
}

// The file's blocks after the opening packet, one letter each.
std::string BlockLetters(const std::string& file, size_t opening_bytes) {
  std::string letters;
  for (size_t at = opening_bytes; at < file.size(); at += 2 << 20) letters += file[at];
  return letters;
}

size_t OpeningBytes() {
  ProtoWriter opening;
  packet_framing::OpeningPacket(opening);
  return opening.size();
}

TEST(BlockQueue, WritesBlocksInKeyOrderOnceNothingEarlierCanCome) {
  std::string path = testing::MakeTempDir() + "/blocks.pftrace";
  PacketWriter out;
  ASSERT_TRUE(out.Open(path).ok());
  const auto opening = static_cast<int64_t>(OpeningBytes());
  constexpr int64_t kBlock = 2 << 20;
  {
    BlockQueue queue(&out, false);
    constexpr uint32_t kCpu0 = block_source::kFirstCpu, kCpu1 = block_source::kFirstCpu + 1;
    queue.Put(BigBlock(queue, 'd'), BlockKey{30, kCpu1, 0});
    queue.Put(BigBlock(queue, 'b'), BlockKey{20, kCpu0, 0});
    queue.Put(BigBlock(queue, 'a'), BlockKey{10, kCpu1, 0});
    queue.Put(BigBlock(queue, 'f'), BlockKey{150, kCpu0, 2});
    EXPECT_EQ(out.bytes(), 0);  // nothing passed yet: a block before them may still come
    queue.Progress(20);
    EXPECT_EQ(out.bytes(), 0);  // 'a' only: released, not a writev's worth
    queue.Progress(31);
    EXPECT_EQ(out.bytes(), opening + 3 * kBlock);  // a, b, d
    // The tracks opened a block at 40: the blocks after it wait for it.
    queue.Opened(block_source::kTracks, 40);
    queue.Put(BigBlock(queue, 'e'), BlockKey{40, kCpu0, 1});
    queue.Progress(100);
    EXPECT_EQ(out.bytes(), opening + 3 * kBlock);
    queue.Put(BigBlock(queue, 'c'), BlockKey{40, block_source::kTracks, 0});
    EXPECT_EQ(out.bytes(), opening + 5 * kBlock);  // c, then e: the same stamp, source order
    queue.Finish();                                // f, past the progress: written at the end
  }
  ASSERT_TRUE(out.Close().ok());
  std::string file = testing::ReadFile(path);
  ASSERT_EQ(static_cast<int64_t>(file.size()), opening + 6 * kBlock);
  EXPECT_EQ(BlockLetters(file, OpeningBytes()), "abdcef");
}

// A trace whose time runs ahead of the analysis (timestamps no clock reaches) does not make the
// queue hold the file: past 64 MiB the lowest keys go out, still in key order.
TEST(BlockQueue, HoldsAtMost64MiBAheadOfTheAnalysis) {
  std::string path = testing::MakeTempDir() + "/ahead.pftrace";
  PacketWriter out;
  ASSERT_TRUE(out.Open(path).ok());
  constexpr int64_t kBlock = 2 << 20;
  {
    BlockQueue queue(&out, false);
    for (int i = 0; i < 40; ++i) {
      char letter = static_cast<char>('A' + i);
      queue.Put(BigBlock(queue, letter),
                BlockKey{1000 + i, block_source::kFirstCpu, static_cast<uint64_t>(i)});
    }
    // 80 MiB put, no progress: all but about 64 MiB (and a writev's worth) are written.
    EXPECT_GE(out.bytes(), 80 * (1 << 20) - 64 * (1 << 20) - 4 * (1 << 20));
    queue.Finish();
  }
  ASSERT_TRUE(out.Close().ok());
  std::string file = testing::ReadFile(path);
  ASSERT_EQ(static_cast<int64_t>(file.size()), static_cast<int64_t>(OpeningBytes()) + 40 * kBlock);
  std::string expected;
  for (int i = 0; i < 40; ++i) expected += static_cast<char>('A' + i);
  EXPECT_EQ(BlockLetters(file, OpeningBytes()), expected);
}

TEST(BlockWriter, EndsItsBlockAMillisecondAfterItsFirstPacket) {
  std::string path = testing::MakeTempDir() + "/writer.pftrace";
  PacketWriter out;
  ASSERT_TRUE(out.Open(path).ok());
  {
    BlockQueue queue(&out, false);
    BlockWriter writer(&queue, block_source::kTracks);
    auto write = [&](TimestampNs ts_ns, char letter) {
      writer.SetNow(ts_ns);
      writer.block().Raw(std::string(1, letter));
      writer.PacketsDone();
    };
    write(1'000'000, 'x');  // opens a block stamped 1 ms
    write(2'000'000, 'y');  // 1 ms later: still the same block
    // A decoded block stamped 1.5 ms goes after the open block, written or not.
    queue.Put(
        [&] {
          ProtoWriter block = queue.Take(0);
          block.Raw("D");
          return block;
        }(),
        BlockKey{1'500'000, block_source::kFirstCpu, 0});
    write(2'000'001, 'z');  // more than 1 ms after the first packet: a new block, stamped 2 ms
    writer.Flush();
    queue.Finish();
  }
  ASSERT_TRUE(out.Close().ok());
  std::string file = testing::ReadFile(path);
  EXPECT_EQ(file.substr(OpeningBytes()), "xyDz");
}

}  // namespace
}  // namespace napiscope::perfetto_export
