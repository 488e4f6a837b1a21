// The last seconds of raw ring-buffer pages a live capture read, per CPU, so they can be
// written as a trace.dat when a check fails. Memory is bounded by time and by bytes: whole
// pages go, oldest first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/event.h"
#include "napiscope/tracedat_writer.h"

struct kbuffer;  // libtraceevent's page reader

namespace napiscope::internal {

/// One ring-buffer page as read, with the times of its first and last event.
struct KeptPage {
  std::string bytes;         ///< the page, padded to the page size
  TimestampNs first_ns = 0;  ///< its first event
  TimestampNs last_ns = 0;   ///< its last event
  int64_t events = 0;        ///< events in it
};

/// Per CPU slot, the pages whose last event lies within `keep_ns` of the newest event seen,
/// at most `max_bytes` in all.
class RecentPages {
 public:
  /// `streams` CPU slots (indices as given to Add).
  RecentPages(size_t streams, TimestampNs keep_ns, size_t max_bytes);

  /// Keeps `page` of stream `index`, then drops the pages that fell out of the window or
  /// beyond the byte limit. Pages without events are not kept.
  void Add(size_t index, std::string_view page, TimestampNs first_ns, TimestampNs last_ns,
           int64_t events);

  /// The pages of stream `index`, oldest first.
  const std::deque<KeptPage>& pages(size_t index) const { return streams_[index]; }

  /// Streams (CPU slots) there are.
  size_t streams() const { return streams_.size(); }

  /// First event kept (over all streams); 0 when nothing is kept.
  TimestampNs first_ns() const;

  /// Newest event seen; 0 when nothing is kept.
  TimestampNs last_ns() const { return newest_ns_; }

  /// Events in the kept pages.
  int64_t events() const { return events_; }

  /// Pages kept.
  int64_t page_count() const { return page_count_; }

  /// Bytes of the kept pages.
  size_t bytes() const { return bytes_; }

  /// Pages dropped because of the byte limit while still inside the time window.
  int64_t dropped_for_memory() const { return dropped_for_memory_; }

 private:
  void DropFront(size_t index);

  std::vector<std::deque<KeptPage>> streams_;
  TimestampNs keep_ns_;
  size_t max_bytes_;
  TimestampNs newest_ns_ = 0;
  int64_t events_ = 0;
  int64_t page_count_ = 0;
  size_t bytes_ = 0;
  int64_t dropped_for_memory_ = 0;
};

/// Reads the event times of raw ring-buffer pages of this machine (for RecentPages::Add when
/// the pages are not decoded otherwise, as in `record --keep`).
class PageScanner {
 public:
  PageScanner();
  ~PageScanner();
  PageScanner(const PageScanner&) = delete;
  PageScanner& operator=(const PageScanner&) = delete;

  /// The first and last event times of `page` and its events; an error when the page cannot
  /// be read or kbuffer could not be set up.
  absl::Status Scan(std::string_view page, TimestampNs* first_ns, TimestampNs* last_ns,
                    int64_t* events);

 private:
  ::kbuffer* kbuf_;
};

/// Writes the kept pages to `path` as a trace.dat v6 with `header` (stream i is CPU i), with
/// the writer `record` uses; sets `*file_bytes`. A file left half-written is removed.
absl::Status WriteRecentPages(const RecentPages& recent, const TraceDatHeader& header,
                              const std::string& path, uint64_t* file_bytes);

}  // namespace napiscope::internal
