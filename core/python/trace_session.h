// One opened trace for Python: loaded and analysed once at open; event columns and derived
// tables are read again from the file on demand, so memory holds only what was asked for.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/analysis_session.h"
#include "napiscope/report.h"

namespace napiscope::python {

/// A trace that cannot be opened or read; what() is the CLI's one-line message.
class TraceError : public std::runtime_error {
 public:
  /// `message`, and the buffer instances to choose from when the buffer to read is the
  /// question (BufferChoices).
  explicit TraceError(const std::string& message, std::vector<std::string> buffers = {})
      : std::runtime_error(message), buffers_(std::move(buffers)) {}
  /// The buffer instances a `buffer=` may name to read the trace; empty for other errors.
  const std::vector<std::string>& buffers() const { return buffers_; }

 private:
  std::vector<std::string> buffers_;
};

/// Labels of the event kinds by EventKind value: "other", "sched_switch", ...,
/// "irq_vector_entry", "irq_vector_exit", "missed_events" (the `kind` column's categories).
std::vector<std::string> EventKindNames();

/// The label of one kind (as in EventKindNames()).
std::string_view KindLabel(EventKind kind);

/// An opened trace: its options, its report and the way back to its file.
class TraceSession {
 public:
  /// Loads and analyses `path` without the GIL; `start`/`end` are None, ns (int), seconds
  /// (float) or the CLI's time syntax (str); `progress` is None or a callable(fraction);
  /// `buffer` the trace.dat buffer instance to read (LoadOptions::buffer).
  TraceSession(std::string path, int threads, std::vector<int> cpus, pybind11::object start,
               pybind11::object end, pybind11::object progress, std::string buffer);

  /// The file's path.
  const std::string& path() const { return options_.path; }
  /// Start of the analysed window (the trace's first event when no start was given).
  int64_t start_ns() const;
  /// End of the analysed window (the trace's last event when no end was given).
  int64_t end_ns() const;

  /// `napiscope info --format json` as text.
  std::string InfoJson() const;
  /// `napiscope report --format json` as text.
  std::string ReportJson() const;

  /// ({column: array}, strings, unrecorded): events of `kinds` (names; empty: all) with
  /// `columns` (empty: all those kinds have), strings being the table string columns index
  /// into, unrecorded the kinds asked for that the trace holds no event of (on any CPU), as
  /// (label, "system:event"): ("napi_poll", "napi:napi_poll").
  pybind11::tuple EventColumns(const std::vector<std::string>& kinds,
                               const std::vector<std::string>& columns);

  /// ({column: array}, strings, string column names): the derived table `name` (TableNames()).
  pybind11::tuple Table(const std::string& name);

 private:
  // (label, "system:event") of each of `kinds` the report counted no event of.
  std::vector<std::pair<std::string, std::string>> UnrecordedKinds(
      const std::vector<EventKind>& kinds) const;
  struct Options {
    std::string path;
    int threads = 0;
    pybind11::object progress;
    std::string buffer;
  };

  /// The time of the trace's first event (reads only until it).
  TimestampNs FirstEventNs();
  /// Loads the file into `sink` without the GIL, with progress and Ctrl-C; throws TraceError.
  void Load(TraceContext& context, EventSink& sink);

  Options options_;
  AnalysisOptions analysis_;
  Report report_;
};

}  // namespace napiscope::python
