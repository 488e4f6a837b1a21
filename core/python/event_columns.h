// Events of chosen kinds as contiguous columns (one array per column, no object per event), for
// the Python module's `Trace.event_columns()`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "napiscope/event_sink.h"

namespace napiscope::python {

/// How a column's values are stored; numpy's dtype string is DtypeName().
enum class ColumnType : uint8_t { kInt64, kInt32, kInt16, kUint16, kUint8, kUint64, kString };

/// numpy dtype of a column type ("int64", ...); kString columns hold StringId codes ("uint32").
const char* DtypeName(ColumnType type);

/// Bytes per value of a column type.
size_t ValueSize(ColumnType type);

/// One column: its name, type and values (raw bytes, ValueSize(type) per row).
struct Column {
  std::string name;
  ColumnType type = ColumnType::kInt64;
  std::vector<uint8_t> bytes;
};

/// Appends `value` to `column`, narrowed to the column's type.
void AppendValue(Column& column, uint64_t value);

/// How one column is read from an event (event_columns.cpp).
struct ColumnSpec;

/// Every column name `event_columns()` can return for `kinds` (common ones first).
std::vector<std::string> ColumnNames(const std::vector<EventKind>& kinds);

/// Collects the asked columns of events of the asked kinds (all kinds when `kinds` is empty),
/// restricted to `cpus` (empty: all) and [from_ns, to_ns]. Reserve() sizes the columns once
/// so that memory is the columns' size, not a growth factor of it.
class EventColumnSink : public EventSink {
 public:
  /// Fails on a column name that no asked kind has.
  static absl::StatusOr<EventColumnSink> Make(std::vector<EventKind> kinds,
                                              const std::vector<std::string>& columns,
                                              std::vector<int> cpus, TimestampNs from_ns,
                                              TimestampNs to_ns);

  /// Reserves room for `rows` rows in every column.
  void Reserve(size_t rows);

  /// True when events of `kind` are collected.
  bool Wants(EventKind kind) const;

  void OnEvent(const Event& event) override;

  /// Rows collected.
  size_t rows() const { return rows_; }

  /// The columns, in the order asked.
  std::vector<Column>& columns() { return columns_; }

 private:
  EventColumnSink() = default;

  std::vector<bool> kind_wanted_;
  std::vector<int> cpus_;
  TimestampNs from_ns_ = 0;
  TimestampNs to_ns_ = 0;
  std::vector<Column> columns_;
  std::vector<const ColumnSpec*> specs_;
  size_t rows_ = 0;
};

}  // namespace napiscope::python
