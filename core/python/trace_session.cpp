#include "trace_session.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>

#include "derived_tables.h"
#include "event_columns.h"
#include "napiscope/analysis_requirements.h"
#include "napiscope/event_schema.h"
#include "napiscope/format.h"
#include "napiscope/info_report.h"
#include "napiscope/json_text.h"
#include "napiscope/loader.h"
#include "napiscope/report_render.h"
#include "napiscope/time_window.h"
#include "numpy_columns.h"

namespace py = pybind11;

namespace napiscope::python {
namespace {

// A window bound as given: absolute trace time, or an offset from the trace's first event.
struct Bound {
  std::optional<TimestampNs> absolute_ns;
  std::optional<int64_t> offset_ns;
};

// None, integer nanoseconds, float seconds of trace time, or the CLI's syntax: "705.4123"
// (absolute seconds, as --from takes them) or "+100ms" (after the trace's first event).
Bound ParseBound(const py::object& value, const char* what) {
  if (value.is_none()) return {};
  if (py::isinstance<py::bool_>(value)) {
    throw py::type_error(std::string(what) + " wants trace time, not a bool");
  }
  if (py::isinstance<py::int_>(value)) return {value.cast<int64_t>(), std::nullopt};
  if (py::isinstance<py::float_>(value)) {
    double seconds = value.cast<double>();
    if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e9) {
      throw py::value_error(std::string(what) + " is not a trace time: " +
                            py::str(value).cast<std::string>());
    }
    return {static_cast<TimestampNs>(std::llround(seconds * 1e9)), std::nullopt};
  }
  if (py::isinstance<py::str>(value)) {
    TimeBound bound;
    std::string error;
    if (!ParseTimeBound(value.cast<std::string>(), &bound, &error)) {
      throw py::value_error(std::string(what) + ": " + error);
    }
    if (bound.from_trace_start) return {std::nullopt, bound.ns};
    return {bound.ns, std::nullopt};
  }
  throw py::type_error(std::string(what) + " wants int nanoseconds, float seconds or a str");
}

// Remembers the first event's time and stops the load there.
class FirstEventSink : public EventSink {
 public:
  explicit FirstEventSink(std::atomic<bool>* stop) : stop_(stop) {}
  void OnEvent(const Event& event) override {
    if (first_ns_) return;
    first_ns_ = event.ts_ns;
    *stop_ = true;
  }
  std::optional<TimestampNs> first_ns() const { return first_ns_; }

 private:
  std::atomic<bool>* stop_;
  std::optional<TimestampNs> first_ns_;
};

}  // namespace

std::vector<std::string> EventKindNames() {
  std::vector<std::string> names;
  for (int kind = 0; kind < static_cast<int>(EventKind::kCount); ++kind) {
    names.emplace_back(KindLabel(static_cast<EventKind>(kind)));
  }
  return names;
}

std::string_view KindLabel(EventKind kind) {
  switch (kind) {
    case EventKind::kOther: return "other";
    case EventKind::kIrqVectorEntry: return "irq_vector_entry";
    case EventKind::kIrqVectorExit: return "irq_vector_exit";
    case EventKind::kMissedEvents: return "missed_events";
    default: return EventKindName(kind);
  }
}

TraceSession::TraceSession(std::string path, int threads, std::vector<int> cpus, py::object start,
                           py::object end, py::object progress, std::string buffer) {
  options_.path = std::move(path);
  options_.threads = threads;
  options_.buffer = std::move(buffer);
  options_.progress = std::move(progress);
  if (threads < 0 || threads > 256) throw py::value_error("threads wants 0 to 256");
  for (int cpu : cpus) {
    if (cpu < 0) {
      throw py::value_error("cpus wants CPU numbers, 0 or more, not " + std::to_string(cpu));
    }
  }
  analysis_.cpus = std::move(cpus);
  // Notebooks get every episode; the memory grows with what the trace holds, not a claim.
  analysis_.max_listed_rows = std::numeric_limits<size_t>::max();
  Bound from = ParseBound(start, "start"), to = ParseBound(end, "end");
  if (from.offset_ns || to.offset_ns) {
    TimestampNs first_ns = FirstEventNs();
    if (from.offset_ns) from.absolute_ns = ResolveTimeBound({*from.offset_ns, true}, first_ns);
    if (to.offset_ns) to.absolute_ns = ResolveTimeBound({*to.offset_ns, true}, first_ns);
  }
  if (from.absolute_ns) analysis_.window.from_ns = *from.absolute_ns;
  if (to.absolute_ns) analysis_.window.to_ns = *to.absolute_ns;
  if (analysis_.window.to_ns < analysis_.window.from_ns) {
    throw py::value_error("end is before start");
  }
  TraceContext context;
  AnalysisSession session(analysis_);
  Load(context, session);
  report_ = session.Finish(context);
  std::string error =
      CheckWindowAndCpusInTrace(analysis_.window, analysis_.cpus, "CPU ", report_.trace);
  if (!error.empty()) throw TraceError(options_.path + ": " + error);
}

TimestampNs TraceSession::FirstEventNs() {
  std::atomic<bool> stop{false};
  FirstEventSink sink(&stop);
  TraceContext context;
  LoadOptions load;
  load.threads = options_.threads;
  load.buffer = options_.buffer;
  load.cancel = &stop;
  absl::Status status;
  {
    py::gil_scoped_release no_gil;
    status = LoadTrace(options_.path, context, sink, load);
  }
  if (!status.ok() && !sink.first_ns()) {
    throw TraceError(std::string(status.message()), BufferChoices(status));
  }
  if (!sink.first_ns()) throw TraceError(options_.path + ": the trace has no events");
  return *sink.first_ns();
}

int64_t TraceSession::start_ns() const {
  return std::max(report_.trace.first_ts_ns, analysis_.window.from_ns);
}

int64_t TraceSession::end_ns() const {
  return std::min(report_.trace.last_ts_ns, analysis_.window.to_ns);
}

void TraceSession::Load(TraceContext& context, EventSink& sink) {
  std::atomic<bool> cancel{false};
  std::exception_ptr callback_error;
  LoadOptions load;
  load.threads = options_.threads;
  load.buffer = options_.buffer;
  load.cancel = &cancel;
  // Called on the loading thread now and then: the place to run the Python callback and to
  // notice Ctrl-C, both with the GIL held.
  load.progress = [&](double fraction) {
    if (callback_error) return;
    py::gil_scoped_acquire gil;
    try {
      if (!options_.progress.is_none()) options_.progress(fraction);
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    } catch (...) {
      callback_error = std::current_exception();
      cancel = true;
    }
  };
  absl::Status status;
  {
    py::gil_scoped_release no_gil;
    status = LoadTrace(options_.path, context, sink, load);
  }
  if (callback_error) std::rethrow_exception(callback_error);
  if (!status.ok()) throw TraceError(std::string(status.message()), BufferChoices(status));
}

std::string TraceSession::InfoJson() const { return JsonText(InfoToJson(report_.trace)); }

std::string TraceSession::ReportJson() const { return JsonText(ReportToJson(report_)); }

py::tuple TraceSession::EventColumns(const std::vector<std::string>& kind_names,
                                     const std::vector<std::string>& columns) {
  std::vector<EventKind> kinds;
  for (const std::string& name : kind_names) {
    std::vector<std::string> labels = EventKindNames();
    auto found = std::find(labels.begin(), labels.end(), name);
    if (found == labels.end()) {
      throw py::value_error("'" + name + "' is not an event kind napiscope decodes");
    }
    kinds.push_back(static_cast<EventKind>(found - labels.begin()));
  }
  auto sink = EventColumnSink::Make(kinds, columns, analysis_.cpus, analysis_.window.from_ns,
                                    analysis_.window.to_ns);
  if (!sink.ok()) throw py::value_error(std::string(sink.status().message()));
  // The open-time counts bound the rows, so the columns are allocated once at their size.
  int64_t rows = 0;
  for (const EventNameCount& count : report_.trace.counts) {
    if (sink->Wants(EventKindFromName(count.name))) rows += count.total;
  }
  if (sink->Wants(EventKind::kMissedEvents)) rows += std::ssize(report_.trace.missed);
  sink->Reserve(static_cast<size_t>(rows));
  TraceContext context;
  Load(context, *sink);
  py::dict arrays = ToNumpyDict(sink->columns(), sink->rows());
  return py::make_tuple(arrays, StringsOf(context.strings), UnrecordedKinds(kinds));
}

std::vector<std::pair<std::string, std::string>> TraceSession::UnrecordedKinds(
    const std::vector<EventKind>& kinds) const {
  std::vector<std::pair<std::string, std::string>> unrecorded;
  for (EventKind kind : kinds) {
    const EventSchema& schema = SchemaOf(kind);
    if (schema.system.empty()) continue;  // "other" and lost-event marks
    bool occurred = std::any_of(
        report_.trace.counts.begin(), report_.trace.counts.end(),
        [&](const EventNameCount& count) { return EventKindFromName(count.name) == kind; });
    // Enabled while recording and none happened: recorded, with no rows.
    const std::vector<std::string>& enabled = report_.trace.meta.enabled_events;
    bool enabled_without_events =
        std::any_of(enabled.begin(), enabled.end(), [&](const std::string& qualified) {
          return EventKindFromName(EventPartOf(qualified)) == kind;
        });
    if (occurred || enabled_without_events) continue;
    std::string_view name = schema.name;
    if (kind == EventKind::kIrqVectorEntry) name = "*_entry";
    if (kind == EventKind::kIrqVectorExit) name = "*_exit";
    unrecorded.emplace_back(KindLabel(kind), std::string(schema.system) + ":" + std::string(name));
  }
  return unrecorded;
}

py::tuple TraceSession::Table(const std::string& name) {
  TraceContext context;
  std::unique_ptr<TableSink> sink = MakeTableSink(name, analysis_);
  if (sink == nullptr) throw py::value_error("no derived table '" + name + "'");
  SessionOutputs outputs;
  outputs.report = false;
  sink->Subscribe(&outputs);
  AnalysisSession session(analysis_, outputs);
  Load(context, session);
  return sink->Take();
}

}  // namespace napiscope::python
