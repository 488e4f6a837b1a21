#include "numpy_columns.h"

namespace napiscope::python {

namespace py = pybind11;

py::array ToNumpy(Column&& column, size_t rows) {
  auto* owned = new std::vector<uint8_t>(std::move(column.bytes));
  py::capsule owner(owned, [](void* bytes) { delete static_cast<std::vector<uint8_t>*>(bytes); });
  py::dtype dtype(DtypeName(column.type));
  return py::array(dtype, {static_cast<py::ssize_t>(rows)}, {}, owned->data(), owner);
}

py::dict ToNumpyDict(std::vector<Column>& columns, size_t rows) {
  py::dict result;
  for (Column& column : columns) {
    std::string name = column.name;
    result[py::str(name)] = ToNumpy(std::move(column), rows);
  }
  columns.clear();
  return result;
}

void ColumnBuilder::Declare(std::initializer_list<std::pair<const char*, ColumnType>> columns) {
  for (const auto& [name, type] : columns) columns_.push_back(Column{name, type, {}});
}

ColumnBuilder& ColumnBuilder::Add(uint64_t value) {
  AppendValue(columns_[next_], value);
  next_ = (next_ + 1) % columns_.size();
  return *this;
}

py::dict ColumnBuilder::Take() {
  size_t rows = columns_.empty() ? 0 : columns_.back().bytes.size() / ValueSize(columns_.back().type);
  for (Column& column : columns_) column.bytes.resize(rows * ValueSize(column.type));
  next_ = 0;
  return ToNumpyDict(columns_, rows);
}

std::vector<std::string> ColumnBuilder::StringColumns() const {
  std::vector<std::string> names;
  for (const Column& column : columns_) {
    if (column.type == ColumnType::kString) names.push_back(column.name);
  }
  return names;
}

py::list StringsOf(const StringTable& table) {
  py::list strings(table.size());
  for (size_t id = 0; id < table.size(); ++id) {
    std::string_view text = table.Get(static_cast<StringId>(id));
    PyObject* decoded =
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
    if (decoded == nullptr) throw py::error_already_set();
    strings[id] = py::reinterpret_steal<py::str>(decoded);
  }
  return strings;
}

py::list ColumnBuilder::Strings() const { return StringsOf(strings_); }

}  // namespace napiscope::python
