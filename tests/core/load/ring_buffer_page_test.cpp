// WalkRingBufferPage returns the records libtraceevent's kbuffer returns (offsets, sizes,
// timestamps, lost events) on crafted and random pages of either byte order, and stops on lengths
// kbuffer would follow into an endless loop or past the page.
#include "load/ring_buffer_page.h"

#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
extern "C" {  // kbuffer.h has no C++ guard
#include <traceevent/kbuffer.h>
}

namespace napiscope::internal {
namespace {

constexpr int kPageSize = 4096;

// A page: the timestamp, the commit field (`long_size` bytes), then records; its words
// little-endian, or big-endian with `big_endian`.
class PageBuilder {
 public:
  PageBuilder(uint64_t ts, int long_size, bool big_endian = false)
      : long_size_(long_size), big_endian_(big_endian), page_(kPageSize, 0) {
    Put(0, ts, 8);
  }
  void Word(uint32_t word) {
    Put(Start() + used_, word, 4);
    used_ += 4;
  }
  // The 5-bit type and 27-bit delta: low bits first in a little-endian word.
  void Header(uint32_t type, uint32_t delta) {
    Word(big_endian_ ? type << 27 | delta : delta << 5 | type);
  }
  // A data record of `words` payload words (1 to 28 in the header, more after a length word).
  void Data(uint32_t delta, uint32_t words) {
    if (words <= 28) {
      Header(words, delta);
    } else {
      Header(0, delta);
      Word(words * 4 + 4);
    }
    for (uint32_t i = 0; i < words; ++i) Word(0xd0000000u + used_);
  }
  void Extend(uint32_t delta, uint32_t high) {
    Header(30, delta);
    Word(high);
  }
  void Stamp(uint32_t low, uint32_t high) {
    Header(31, low);
    Word(high);
  }
  void Padding(uint32_t delta, uint32_t length) {
    Header(29, delta);
    Word(length);
    used_ += length - 4;
  }
  uint32_t used() const { return used_; }
  // Commits what was written, with the lost-events flags (and the count after the data).
  std::vector<uint8_t> Page(bool missed = false, bool stored = false, uint64_t count = 0) {
    uint64_t commit = used_ | (missed ? 1ull << 31 : 0) | (stored ? 1ull << 30 : 0);
    Put(8, commit, long_size_);
    if (stored) Put(Start() + used_, count, long_size_);
    return page_;
  }

 private:
  uint32_t Start() const { return 8 + static_cast<uint32_t>(long_size_); }
  void Put(size_t at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      const int shift = 8 * (big_endian_ ? bytes - 1 - i : i);
      page_[at + static_cast<size_t>(i)] = static_cast<uint8_t>(value >> shift);
    }
  }
  int long_size_;
  bool big_endian_;
  std::vector<uint8_t> page_;
  uint32_t used_ = 0;
};

std::vector<PageRecord> KbufferRecords(std::vector<uint8_t> page, int long_size, bool big_endian) {
  kbuffer* kbuf = kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                                big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
  EXPECT_EQ(kbuffer_load_subbuffer(kbuf, page.data()), 0);
  std::vector<PageRecord> records;
  unsigned long long ts = 0;
  for (void* data = kbuffer_read_event(kbuf, &ts); data != nullptr;
       data = kbuffer_next_event(kbuf, &ts)) {
    records.push_back({static_cast<uint32_t>(kbuffer_curr_offset(kbuf)),
                       static_cast<uint32_t>(static_cast<uint8_t*>(data) - page.data()),
                       kbuffer_event_size(kbuf), ts, kbuffer_missed_events(kbuf)});
  }
  kbuffer_free(kbuf);
  return records;
}

void ExpectSameAsKbuffer(const std::vector<uint8_t>& page, int long_size, bool big_endian = false) {
  std::vector<PageRecord> want = KbufferRecords(page, long_size, big_endian);
  std::vector<PageRecord> got;
  BadRecord bad;
  ASSERT_TRUE(WalkRingBufferPage(page.data(), kPageSize, long_size, big_endian, &got, &bad));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "record " << i);
    EXPECT_EQ(got[i].header_offset, want[i].header_offset);
    EXPECT_EQ(got[i].data_offset, want[i].data_offset);
    EXPECT_EQ(got[i].size, want[i].size);
    EXPECT_EQ(got[i].ts, want[i].ts);
    EXPECT_EQ(got[i].missed_events, want[i].missed_events);
  }
}

TEST(RingBufferPage, EveryRecordTypeReadsAsKbufferReadsIt) {
  for (auto [long_size, big_endian] : {std::pair{8, false}, {4, false}, {8, true}, {4, true}}) {
    SCOPED_TRACE(::testing::Message() << "commit field of " << long_size << " bytes"
                                      << (big_endian ? ", big-endian" : ""));
    PageBuilder page(0xf800'0000'0010'0000ull, long_size, big_endian);
    page.Data(3, 1);
    page.Data(5, 28);
    page.Data(7, 40);  // length word
    page.Extend(9, 2);
    page.Data(0, 2);
    page.Padding(11, 24);
    page.Data(13, 3);
    page.Stamp(17, 5);  // absolute: the top 5 bits come from the page's time
    page.Data(19, 4);
    ExpectSameAsKbuffer(page.Page(), long_size, big_endian);
    ExpectSameAsKbuffer(page.Page(true, true, 12345), long_size, big_endian);
    ExpectSameAsKbuffer(page.Page(true, false), long_size, big_endian);
    std::vector<PageRecord> records;
    BadRecord bad;
    ASSERT_TRUE(WalkRingBufferPage(page.Page(true, true, 12345).data(), kPageSize, long_size,
                                   big_endian, &records, &bad));
    ASSERT_EQ(records.size(), 6u);
    EXPECT_EQ(records[0].missed_events, 12345);
    EXPECT_EQ(records[0].ts, 0xf800'0000'0010'0003ull);
    EXPECT_EQ(records[5].ts, 0xf800'0000'2800'0011ull + 19);
  }
}

TEST(RingBufferPage, LostEventsBelongToARecordAtTheStartOfTheDataOnly) {
  PageBuilder page(1000, 8);
  page.Extend(1, 1);  // the first data record is not at byte 0: kbuffer gives it no count
  page.Data(1, 2);
  ExpectSameAsKbuffer(page.Page(true, true, 7), 8);
  std::vector<PageRecord> records;
  BadRecord bad;
  ASSERT_TRUE(
      WalkRingBufferPage(page.Page(true, true, 7).data(), kPageSize, 8, false, &records, &bad));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].missed_events, 0);
}

TEST(RingBufferPage, RandomPagesReadAsKbufferReadsThem) {
  std::mt19937 random(20261203);
  for (int round = 0; round < 300; ++round) {
    const int long_size = round % 3 == 0 ? 4 : 8;
    const bool big_endian = round % 4 == 1;
    PageBuilder page(random(), long_size, big_endian);
    const uint32_t room = kPageSize - 8 - static_cast<uint32_t>(long_size) - 16;
    for (;;) {
      const uint32_t kind = random() % 10;
      const uint32_t delta = random() & ((1u << 27) - 1);
      const uint32_t words = 1 + random() % 60;
      const uint32_t need = kind == 0 ? 8 : kind == 1 ? 8 + words * 4 : 8 + words * 4;
      if (page.used() + need > room) break;
      if (kind == 0) {
        page.Extend(delta, random() & 0xffff);
      } else if (kind == 1) {
        page.Padding(delta, 4 + words * 4);
      } else if (kind == 2 && round % 2 == 0) {
        page.Stamp(delta, random() & 0xffff);
      } else {
        page.Data(delta, words);
      }
    }
    SCOPED_TRACE(::testing::Message() << "round " << round);
    ExpectSameAsKbuffer(page.Page(round % 5 == 0, round % 10 == 0, round), long_size, big_endian);
  }
}

TEST(RingBufferPage, StopsAtALengthThatPointsBackOrRunsPastTheData) {
  PageBuilder looping(0, 8);
  looping.Data(1, 2);
  looping.Header(29, 1);
  looping.Word(0xfffffffcu);  // padding of length -4: back at itself
  looping.Data(1, 2);
  std::vector<PageRecord> records;
  BadRecord bad;
  EXPECT_FALSE(WalkRingBufferPage(looping.Page().data(), kPageSize, 8, false, &records, &bad));
  EXPECT_EQ(bad.page_offset, 16u + 12u);
  EXPECT_FALSE(bad.runs_past);

  PageBuilder too_long(0, 8);
  too_long.Header(0, 1);
  too_long.Word(0x7ffffff0u);  // 2 GiB of payload in a 4 KiB page
  too_long.Word(0);
  EXPECT_FALSE(WalkRingBufferPage(too_long.Page().data(), kPageSize, 8, false, &records, &bad));
  EXPECT_EQ(bad.page_offset, 16u);
  EXPECT_TRUE(bad.runs_past);
}

}  // namespace
}  // namespace napiscope::internal
