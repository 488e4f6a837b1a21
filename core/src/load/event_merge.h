// Merging the decoded chunks of every CPU into one stream ordered by (timestamp, cpu).
#pragma once

#include <cstdint>
#include <vector>

#include <absl/status/status.h>

#include "load/chunk_source.h"
#include "load/tracedat_header.h"
#include "napiscope/loader.h"

namespace napiscope::internal {

/// What the merge counted over all records.
struct MergeTotals {
  int64_t records = 0;
  int64_t skipped = 0;    ///< records with unknown event ids
  int64_t backwards = 0;  ///< records earlier than a previous one of their CPU
  int64_t impossible_time = 0;  ///< records dropped for a timestamp no clock reaches
};

/// Pops the earliest head of all CPUs with a StreamHeap (ties: lower CPU first), turns the
/// chunk's string ids into ids of `context.strings`, and hands each event to an EventIngest
/// (the bookkeeping text and live capture share). `tep` supplies saved cmdlines (read on
/// this thread only); `extents` (by CPU, may be empty) drive progress. Calls OnBegin but not
/// OnEnd.
absl::Status MergeChunks(ChunkSource& source, int cpus, tep_handle* tep,
                         const std::vector<CpuDataExtent>& extents, TraceContext& context,
                         EventSink& sink, const LoadOptions& options, MergeTotals* totals);

}  // namespace napiscope::internal
