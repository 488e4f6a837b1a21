#include "napiscope/string_table.h"

namespace napiscope {

StringTable::StringTable() { Intern(""); }

StringId StringTable::Intern(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  StringId id = static_cast<StringId>(strings_.size());
  const std::string& stored = strings_.emplace_back(text);
  ids_.emplace(std::string_view(stored), id);
  views_.emplace_back(stored);
  return id;
}

bool StringTable::Find(std::string_view text, StringId* id) const {
  auto it = ids_.find(text);
  if (it == ids_.end()) return false;
  *id = it->second;
  return true;
}

}  // namespace napiscope
