// Text from the core (UTF-8 string views) as Qt strings.
#pragma once

#include <string_view>

#include <QString>

namespace napiscope::gui {

/// `text` as a QString.
inline QString Str(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<int>(text.size()));
}

}  // namespace napiscope::gui
