// Interned strings: comms, IRQ handler names, device and event names stored once per trace.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event.h"

namespace napiscope {

/// Maps strings to small stable ids; views returned by Get stay valid for the table's lifetime.
class StringTable {
 public:
  /// Creates a table holding only the empty string as id 0.
  StringTable();
  /// Not copyable: the ids' views point into the table's own strings.
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  /// Movable: the strings keep their addresses.
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  /// Returns the id of `text`, adding it on first use.
  StringId Intern(std::string_view text);

  /// Returns the id of `text` if already interned.
  bool Find(std::string_view text, StringId* id) const;

  /// Returns the string of `id` ("" for an unknown id).
  std::string_view Get(StringId id) const {
    return id < views_.size() ? views_[id] : std::string_view();
  }

  /// Number of distinct strings, including the empty one.
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::vector<std::string_view> views_;  // strings_[id] by id, for Get without the deque's steps
  absl::flat_hash_map<std::string_view, StringId> ids_;
};

}  // namespace napiscope
