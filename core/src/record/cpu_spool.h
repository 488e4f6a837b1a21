// One CPU's ring-buffer pages while recording, spooled to an unlinked file until the trace.dat
// is written (trace.dat v6 needs each CPU's data in one piece, so they are joined at the end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <absl/status/status.h>

#include "napiscope/tracedat_writer.h"

namespace napiscope::internal {

/// Pages of one CPU: those not yet on disk in `pending`, the rest in the file `fd`.
struct CpuSpool {
  int fd = -1;          ///< the spool file (unlinked), read and written
  std::string pending;  ///< pages not yet written to `fd`
  int64_t pages = 0;    ///< pages spooled in all
};

/// Writes `spool->pending` to its file; a full disk is an error naming `name`.
absl::Status FlushSpool(const std::string& name, CpuSpool* spool);

/// Appends the spooled pages to the writer's current CPU, freeing each part of the spool file
/// once handed over (a hole punched), so the disk holds little more than the trace at any
/// time. Errors name `name`.
absl::Status CopySpoolInto(const std::string& name, CpuSpool* spool, TraceDatFileWriter* writer,
                           size_t page_size);

}  // namespace napiscope::internal
