#include "record/recent_pages.h"

#include <unistd.h>

#include <algorithm>
#include <limits>

extern "C" {  // kbuffer.h has no C++ guards
#include <traceevent/kbuffer.h>
}

namespace napiscope::internal {

RecentPages::RecentPages(size_t streams, TimestampNs keep_ns, size_t max_bytes)
    : streams_(streams), keep_ns_(keep_ns), max_bytes_(max_bytes) {}

void RecentPages::DropFront(size_t index) {
  const KeptPage& page = streams_[index].front();
  events_ -= page.events;
  bytes_ -= page.bytes.size();
  --page_count_;
  streams_[index].pop_front();
}

void RecentPages::Add(size_t index, std::string_view page, TimestampNs first_ns,
                      TimestampNs last_ns, int64_t events) {
  if (events <= 0) return;
  streams_[index].push_back({std::string(page), first_ns, last_ns, events});
  events_ += events;
  bytes_ += page.size();
  ++page_count_;
  newest_ns_ = std::max(newest_ns_, last_ns);
  const TimestampNs cutoff_ns = newest_ns_ - keep_ns_;
  for (size_t i = 0; i < streams_.size(); ++i) {
    while (!streams_[i].empty() && streams_[i].front().last_ns < cutoff_ns) DropFront(i);
  }
  // Over the byte limit: the page whose last event is oldest goes, whichever CPU it is on.
  while (bytes_ > max_bytes_ && page_count_ > 1) {
    size_t oldest = 0;
    TimestampNs oldest_ns = std::numeric_limits<TimestampNs>::max();
    for (size_t i = 0; i < streams_.size(); ++i) {
      if (!streams_[i].empty() && streams_[i].front().last_ns < oldest_ns) {
        oldest = i;
        oldest_ns = streams_[i].front().last_ns;
      }
    }
    DropFront(oldest);
    ++dropped_for_memory_;
  }
}

TimestampNs RecentPages::first_ns() const {
  TimestampNs first = std::numeric_limits<TimestampNs>::max();
  for (const std::deque<KeptPage>& stream : streams_) {
    if (!stream.empty()) first = std::min(first, stream.front().first_ns);
  }
  return first == std::numeric_limits<TimestampNs>::max() ? 0 : first;
}

PageScanner::PageScanner()
    : kbuf_(kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST)) {}

PageScanner::~PageScanner() {
  if (kbuf_ != nullptr) kbuffer_free(kbuf_);
}

absl::Status PageScanner::Scan(std::string_view page, TimestampNs* first_ns,
                               TimestampNs* last_ns, int64_t* events) {
  if (kbuf_ == nullptr) return absl::ResourceExhaustedError("out of memory for kbuffer");
  if (kbuffer_load_subbuffer(kbuf_, const_cast<char*>(page.data())) < 0) {
    return absl::DataLossError("unreadable ring-buffer page");
  }
  *first_ns = *last_ns = -1;
  *events = 0;
  unsigned long long ts = 0;
  for (void* data = kbuffer_read_event(kbuf_, &ts); data != nullptr;
       data = kbuffer_next_event(kbuf_, &ts)) {
    TimestampNs now = static_cast<TimestampNs>(ts);
    if ((*events)++ == 0) *first_ns = now;
    *last_ns = std::max(*last_ns, now);
  }
  return absl::OkStatus();
}

absl::Status WriteRecentPages(const RecentPages& recent, const TraceDatHeader& header,
                              const std::string& path, uint64_t* file_bytes) {
  TraceDatFileWriter writer;
  absl::Status status = writer.Open(path, header);
  if (!status.ok()) return status;
  for (size_t cpu = 0; status.ok() && cpu < recent.streams(); ++cpu) {
    if (recent.pages(cpu).empty()) continue;
    status = writer.BeginCpu(static_cast<int>(cpu));
    for (const KeptPage& page : recent.pages(cpu)) {
      if (status.ok()) status = writer.WritePages(page.bytes);
    }
    if (status.ok()) status = writer.EndCpu();
  }
  absl::Status closed = writer.Close();
  if (status.ok()) status = closed;
  if (!status.ok()) {
    unlink(path.c_str());
    return status;
  }
  *file_bytes = writer.bytes();
  return absl::OkStatus();
}

}  // namespace napiscope::internal
