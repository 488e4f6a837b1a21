// "Did you mean": the known name a mistyped one was most likely meant to be, for the messages
// about unknown commands, options and config keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace napiscope {

/// The closest of `names` to `typed` (fewest single-character edits, or `typed` a prefix of
/// it) when close enough to be a typo, else "".
std::string ClosestName(std::string_view typed, const std::vector<std::string>& names);

/// "; did you mean 'NAME'?" for the closest of `names` to `typed`, "" when none is close.
std::string DidYouMean(std::string_view typed, const std::vector<std::string>& names);

}  // namespace napiscope
