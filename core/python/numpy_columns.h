// Hands columns to Python as numpy arrays that own the column's memory (no copy).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "event_columns.h"
#include "napiscope/string_table.h"

namespace napiscope::python {

/// A numpy array of `rows` values over `column`'s bytes, which it takes over.
pybind11::array ToNumpy(Column&& column, size_t rows);

/// {name: array} for every column, in order; the columns are moved out.
pybind11::dict ToNumpyDict(std::vector<Column>& columns, size_t rows);

/// The strings of `table` by id, as Python's string columns index them. Bytes that are not
/// UTF-8 (a comm may hold any) read as U+FFFD, as in the JSON report.
pybind11::list StringsOf(const StringTable& table);

/// Builds a table's columns row by row: declare the columns, then Add() one value per column
/// per row (rows wrap after the last column). String values are interned in the builder.
class ColumnBuilder {
 public:
  /// Declares the columns, in order.
  void Declare(std::initializer_list<std::pair<const char*, ColumnType>> columns);
  /// Appends the next value of the current row.
  ColumnBuilder& Add(uint64_t value);
  /// Appends a signed value.
  ColumnBuilder& Add(int64_t value) { return Add(static_cast<uint64_t>(value)); }
  /// Appends an int value.
  ColumnBuilder& Add(int value) { return Add(static_cast<int64_t>(value)); }
  /// Appends a 32-bit unsigned value (vectors, masks).
  ColumnBuilder& Add(uint32_t value) { return Add(static_cast<uint64_t>(value)); }
  /// Appends a bool as 0/1.
  ColumnBuilder& Add(bool value) { return Add(static_cast<uint64_t>(value)); }
  /// Appends a string (the column holds its id into Strings()).
  ColumnBuilder& AddString(std::string_view text) { return Add(strings_.Intern(text)); }
  /// Names of the string columns (call before Take()).
  std::vector<std::string> StringColumns() const;
  /// {name: array} of the complete rows; the columns are empty afterwards.
  pybind11::dict Take();
  /// The strings string columns index into (as StringsOf).
  pybind11::list Strings() const;

 private:
  std::vector<Column> columns_;
  size_t next_ = 0;
  StringTable strings_;
};

}  // namespace napiscope::python
