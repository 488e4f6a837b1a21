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
struct MergeTotals : ReadTotals {
  int64_t skipped = 0;  ///< records with unknown event ids
};

/// Merges the source's streams with a ChunkMerge (earliest first, ties: lower CPU first),
/// turns the chunks' string ids into ids of `context.strings`, and hands each event to an
/// EventIngest (the bookkeeping text and live capture share). `tep` supplies saved cmdlines
/// (read on this thread only); `extents` (by CPU, may be empty) drive progress. Calls OnBegin
/// but not OnEnd.
absl::Status MergeChunks(CpuDataSource& source, int cpus, tep_handle* tep,
                         const std::vector<CpuDataExtent>& extents, TraceContext& context,
                         EventSink& sink, const LoadOptions& options, MergeTotals* totals);

}  // namespace napiscope::internal
