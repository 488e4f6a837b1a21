// The trace's strings as the thread that encodes the export reads them.
#pragma once

#include <string_view>
#include <vector>

#include "napiscope/string_table.h"

namespace napiscope::perfetto_export {

/// The trace's strings by id, as the encoding side reads them: views of the StringTable's
/// strings (which never move or change), sent with the records as the table grows.
class StringMirror {
 public:
  /// The string of `id` ("" for an id not sent yet, as StringTable::Get).
  std::string_view Get(StringId id) const {
    return id < strings_.size() ? strings_[id] : std::string_view();
  }
  /// Adds the strings `table` has beyond those already here (same thread as the table's).
  void CatchUp(const StringTable& table) {
    for (size_t id = strings_.size(); id < table.size(); ++id) {
      strings_.push_back(table.Get(static_cast<StringId>(id)));
    }
  }
  /// Adds the next id's string.
  void Append(std::string_view text) { strings_.push_back(text); }
  /// How many strings were sent.
  size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string_view> strings_;
};

}  // namespace napiscope::perfetto_export
