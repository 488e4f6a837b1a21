// Breaking text into lines of a terminal's width, for every text output (the renderers' and
// napiscope live's).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace napiscope {

/// `pieces`, each kept whole and `separator` apart, after `first_prefix`, in lines of at most
/// `width` columns (0: one line; a piece longer than a line has one of its own), the lines
/// after the first starting with `rest_prefix`; every line ends in a newline.
std::string WrapPieces(const std::vector<std::string>& pieces, std::string_view separator,
                       size_t width, std::string_view first_prefix, std::string_view rest_prefix);

/// `text` broken at its spaces as WrapPieces breaks pieces.
std::string WrapWords(std::string_view text, size_t width, std::string_view first_prefix,
                      std::string_view rest_prefix);

}  // namespace napiscope
