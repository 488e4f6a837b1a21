// libtraceevent's event parser for a trace.dat, built from the header napiscope read itself
// instead of through libtracecmd (which parses every section, kallsyms and all, and every
// event format, to open a file).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <absl/status/status.h>

#include "load/event_decoder.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {

/// Frees a tep handle.
struct TepFree {
  void operator()(tep_handle* tep) const;
};

/// The parser of one trace.dat and what building it found.
struct TracedatParser {
  std::unique_ptr<tep_handle, TepFree> tep;  ///< the decoded formats, saved cmdlines
  TraceFormats formats;                      ///< `tep` plus the formats left unparsed
  std::vector<std::string> event_formats;    ///< "system:name" of every format, sorted
  std::vector<std::string> warnings;         ///< formats that did not parse
};

/// Parses the formats of the events napiscope decodes (and at least one, for the common
/// fields; checked in a forked child first), names every other format from its text, and
/// loads the saved cmdlines.
absl::Status BuildTracedatParser(const TraceDatHeader& header, TracedatParser* parser);

/// Checks that every field of the events napiscope decodes lies inside a ring-buffer page of
/// `page_size` bytes (offsets and sizes come from the file's format text, any int): a corrupt
/// format is a DataLoss error naming the event and the field.
absl::Status CheckDecodedFieldsFit(tep_handle* tep, int page_size);

}  // namespace napiscope::internal
