#include "load/ring_buffer_page.h"

#include <bit>
#include <cstring>

namespace napiscope::internal {
namespace {

// Record types of a header's 5-bit type field (beside it, 27 bits of time delta); 1 to 28 are
// data records of that many 4-byte words, 0 a data record whose length follows the header.
constexpr uint32_t kPadding = 29;
constexpr uint32_t kTimeExtend = 30;
constexpr uint32_t kTimeStamp = 31;
constexpr int kTimeShift = 27;
// An absolute time stamp holds 59 bits; the top 5 are those of the time before it.
constexpr uint64_t kTimeStampHighBits = uint64_t{0xf8} << 56;
constexpr uint64_t kCommitSizeMask = (uint64_t{1} << 27) - 1;
constexpr uint64_t kMissedEvents = uint64_t{1} << 31;
constexpr uint64_t kMissedStored = uint64_t{1} << 30;

// A `bytes`-byte word of the file's byte order.
template <bool kBigEndian>
uint64_t ReadWord(const uint8_t* at, int bytes) {
  static_assert(std::endian::native == std::endian::little);
  uint64_t value = 0;
  std::memcpy(&value, at, static_cast<size_t>(bytes));
  if constexpr (kBigEndian) value = __builtin_bswap64(value) >> (64 - 8 * bytes);
  return value;
}

template <bool kBigEndian>
bool Walk(const uint8_t* page, int page_size, int long_size, std::vector<PageRecord>* records,
          BadRecord* bad) {
  auto read = [](const uint8_t* at, int bytes) { return ReadWord<kBigEndian>(at, bytes); };
  records->clear();
  const uint32_t start = 8 + static_cast<uint32_t>(long_size);  // timestamp, then commit
  const uint8_t* data = page + start;
  // Bytes of the page a header may be read from: a corrupt length may leave the last
  // header's second word past the page, read as zeros (kbuffer would read the next page).
  const uint32_t readable = static_cast<uint32_t>(page_size) - start;
  auto read4 = [&](uint32_t at) -> uint32_t {
    if (at + 4 <= readable) return static_cast<uint32_t>(read(data + at, 4));
    uint8_t padded[4] = {};
    if (at < readable) std::memcpy(padded, data + at, readable - at);
    return static_cast<uint32_t>(read(padded, 4));
  };
  const uint64_t flags = read(page + 8, long_size);
  const uint32_t size = static_cast<uint32_t>(flags & kCommitSizeMask);
  int64_t lost = 0;
  if ((flags & kMissedEvents) != 0) {
    // The count sits right after the data; a page too full to hold it counts as unknown.
    const bool stored =
        (flags & kMissedStored) != 0 && size + static_cast<uint32_t>(long_size) <= readable;
    // kbuffer_missed_events returns an int.
    lost = stored ? static_cast<int>(read(data + size, long_size)) : -1;
  }
  uint64_t ts = read(page, 8);
  uint32_t next = 0;
  while (next < size) {
    const uint32_t header = next;
    const uint32_t word = read4(header);
    // The 5-bit type and 27-bit delta are a bitfield: the type in the low bits of a
    // little-endian word, in the high bits of a big-endian one.
    const uint32_t type = kBigEndian ? word >> 27 : word & 31;
    uint64_t delta = kBigEndian ? word & ((1u << 27) - 1) : word >> 5;
    uint32_t payload = header + 4;
    int32_t length = 0;
    switch (type) {
      case kPadding:
        length = static_cast<int32_t>(read4(payload));
        break;
      case kTimeExtend:
      case kTimeStamp:
        delta += uint64_t{read4(payload)} << kTimeShift;
        payload += 4;
        break;
      case 0:  // the length word counts itself; the payload is rounded up to whole words
        length = static_cast<int32_t>((read4(payload) - 4 + 3) & ~3u);
        payload += 4;
        break;
      default:
        length = static_cast<int32_t>(type * 4);
        break;
    }
    ts = type == kTimeStamp ? delta | (ts & kTimeStampHighBits) : ts + delta;
    const int64_t after = int64_t{payload} + length;
    const bool is_data = type < kPadding;
    // A length that points back would loop forever; a data record must end in the data.
    if (after <= header || (is_data && after > size)) {
      *bad = {start + header, after > header};
      return false;
    }
    if (is_data) {
      records->push_back({start + header, start + payload, length, ts, header == 0 ? lost : 0});
    }
    next = static_cast<uint32_t>(after);
  }
  return true;
}

}  // namespace

bool WalkRingBufferPage(const uint8_t* page, int page_size, int long_size, bool big_endian,
                        std::vector<PageRecord>* records, BadRecord* bad) {
  return big_endian ? Walk<true>(page, page_size, long_size, records, bad)
                    : Walk<false>(page, page_size, long_size, records, bad);
}

}  // namespace napiscope::internal
