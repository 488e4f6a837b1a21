// Interned strings: comms, IRQ handler names, device and event names stored once per trace.
#pragma once

#include <deque>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_map.h>

#include "napiscope/event.h"

namespace napiscope {

/// Maps strings to small stable ids; views returned by Get stay valid for the table's lifetime.
class StringTable {
 public:
  /// Creates a table holding only the empty string as id 0.
  StringTable();

  /// Returns the id of `text`, adding it on first use.
  StringId Intern(std::string_view text);

  /// Returns the id of `text` if already interned.
  bool Find(std::string_view text, StringId* id) const;

  /// Returns the string of `id` ("" for an unknown id).
  std::string_view Get(StringId id) const;

  /// Number of distinct strings, including the empty one.
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  absl::flat_hash_map<std::string_view, StringId> ids_;
};

}  // namespace napiscope
