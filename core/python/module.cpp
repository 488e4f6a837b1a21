// The `napiscope._napiscope` extension: loading and analysing a trace, events as columns, and
// the derived tables. napiscope/__init__.py turns the columns into pandas DataFrames.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "derived_tables.h"
#include "trace_session.h"

namespace py = pybind11;

using napiscope::python::TraceError;
using napiscope::python::TraceSession;

PYBIND11_MODULE(_napiscope, module) {
  module.doc() = "napiscope's trace loader and analyses (use the `napiscope` package, not this).";
  module.attr("__version__") = NAPISCOPE_VERSION;
  static py::exception<TraceError> error(module, "Error", PyExc_RuntimeError);
  error.attr("buffers") = py::tuple();  // an instance of a buffer question has its own
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const TraceError& e) {
      py::object instance = py::reinterpret_borrow<py::object>(error.ptr())(e.what());
      instance.attr("buffers") = py::tuple(py::cast(e.buffers()));
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  py::class_<TraceSession>(module, "Trace")
      .def(py::init<std::string, int, std::vector<int>, py::object, py::object, py::object,
                    std::string>(),
           py::arg("path"), py::arg("threads") = 0, py::arg("cpus") = std::vector<int>{},
           py::arg("start") = py::none(), py::arg("end") = py::none(),
           py::arg("progress") = py::none(), py::arg("buffer") = std::string())
      .def_property_readonly("path", &TraceSession::path)
      .def_property_readonly("start_ns", &TraceSession::start_ns)
      .def_property_readonly("end_ns", &TraceSession::end_ns)
      .def("info_json", &TraceSession::InfoJson)
      .def("report_json", &TraceSession::ReportJson)
      .def("event_columns", &TraceSession::EventColumns, py::arg("kinds"), py::arg("columns"))
      .def("table", &TraceSession::Table, py::arg("name"));
  module.def("event_kinds", &napiscope::python::EventKindNames,
             "Labels of the event kinds, by the kind column's code.");
  module.def("table_names", &napiscope::python::TableNames, "Names of the derived tables.");
}
