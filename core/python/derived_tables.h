// The derived tables of the Python module: one row per fact the core derives (a softirq wait,
// a hard-IRQ run, a NAPI poll, ...), as columns, read from the core's producers while a trace
// streams through them.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "napiscope/analysis_session.h"
#include "napiscope/event_sink.h"

namespace napiscope::python {

/// Names of the derived tables, for Trace.table().
std::vector<std::string> TableNames();

/// Consumes a trace's events and facts and builds one derived table.
class TableSink : public EventSink {
 public:
  /// Adds the table's listeners and sink to what a session without the report feeds.
  virtual void Subscribe(SessionOutputs* outputs) = 0;
  /// ({column: array}, strings, string column names) of the rows collected; call once after
  /// the load. String columns hold ids into strings.
  virtual pybind11::tuple Take() = 0;
};

/// The sink that builds table `name` within `options`' window and CPUs, nullptr for an unknown
/// name.
std::unique_ptr<TableSink> MakeTableSink(const std::string& name, const AnalysisOptions& options);

}  // namespace napiscope::python
