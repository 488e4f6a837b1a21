// Walking the records of one ring-buffer page (a sub-buffer of trace.dat's CPU data) in one
// pass, with libtraceevent's kbuffer rules but without its calls per record.
#pragma once

#include <cstdint>
#include <vector>

namespace napiscope::internal {

/// One data record of a page.
struct PageRecord {
  uint32_t header_offset = 0;  ///< page byte where the record's header starts
  uint32_t data_offset = 0;    ///< page byte where its payload starts
  int32_t size = 0;            ///< payload bytes
  uint64_t ts = 0;             ///< raw timestamp (page timestamp plus the deltas up to here)
  int64_t missed_events = 0;   ///< events lost before it, -1 when not counted (first only)
};

/// A record whose length points backwards or runs past the page's data.
struct BadRecord {
  uint32_t page_offset = 0;  ///< page byte of the record's header
  bool runs_past = false;    ///< its data runs past the page's data (else: points backwards)
};

/// Reads the data records of `page` (`page_size` bytes, its commit field `long_size` bytes,
/// words in the file's byte order, the commit already checked to claim no more than the page
/// holds) into `records` (cleared first), as kbuffer_read_event/kbuffer_next_event return them, and
/// checks every record's length, which kbuffer trusts: false, with the first bad record, if one
/// does not advance (kbuffer would loop forever) or is a data record that runs past the page's
/// data.
bool WalkRingBufferPage(const uint8_t* page, int page_size, int long_size, bool big_endian,
                        std::vector<PageRecord>* records, BadRecord* bad);

}  // namespace napiscope::internal
