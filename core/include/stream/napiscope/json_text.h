// JSON as text, safe for any bytes a trace holds.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace napiscope {

/// The text of `value` (pretty-printed when `indent` >= 0). Task names are arbitrary bytes in
/// the kernel, so invalid UTF-8 becomes U+FFFD instead of an exception.
inline std::string JsonText(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace napiscope
