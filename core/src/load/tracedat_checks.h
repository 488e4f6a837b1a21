// Checks of a parsed trace.dat header, for what would make libtracecmd or libtraceevent crash
// or every time wrong: each returns an error in plain words, or adds a warning.
#pragma once

#include <cstddef>
#include <vector>

#include <absl/status/status.h>

#include "load/tracedat_bytes.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {

/// An error when the trace_clock counts cycles or events, not time (x86-tsc, ppc-tb, counter,
/// uptime), and no TSC2NSEC option converts it: every duration would be off by its rate.
absl::Status CheckClockCountsTime(const TraceDatHeader& header);

/// Parses the header_page format with libtraceevent (libtracecmd 1.3 crashes in its own error
/// path when it does not parse) and takes the long size of its commit field, the kernel's, over
/// the file header's (a warning when they differ).
absl::Status CheckHeaderPage(TraceDatHeader* header);

/// An error when the file header's page size is not the one the kernel's header_page
/// describes (its data field's offset plus size): pages read at the wrong size lose events.
absl::Status CheckPageSizeAgrees(const TraceDatHeader& header);

/// An error when an uncompressed CPU's first page claims more data than a page holds
/// (libtracecmd loads that page when it opens the file, and crashes).
absl::Status CheckFirstPages(const FileView& file, const TraceDatHeader& header);

/// Warns of a TIME_SHIFT option whose CPUs do not match the trace's (applied where it can be,
/// as libtracecmd applies it).
void AddTimeShiftWarnings(TraceDatHeader* header);

/// Parses the event formats at `formats` (indices into header.event_formats) in a forked
/// child first, because libtraceevent crashes on some corrupt formats: a crash or hang there
/// is a DataLoss error instead. A set of formats that parsed is not forked for again.
absl::Status CheckEventFormatsParse(const TraceDatHeader& header,
                                    const std::vector<size_t>& formats);

}  // namespace napiscope::internal
