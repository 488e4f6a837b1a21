#include "napiscope/suggest.h"

#include <algorithm>

namespace napiscope {
namespace {

// Edits to turn `a` into `b`, a swap of two neighbours counting as one (optimal string
// alignment): "ifno" is one edit from "info".
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string ClosestName(std::string_view typed, const std::vector<std::string>& names) {
  std::string best;
  // One edit in three letters at most (and one in any word): "xml" is not a typo of "html".
  size_t best_distance = std::max<size_t>(1, typed.size() / 3) + 1;
  for (const std::string& name : names) {
    // The lengths' difference is a lower bound of the distance: a name far longer or shorter is
    // skipped before the table, which costs the product of the lengths (a 950 KB config key).
    size_t length_gap =
        typed.size() > name.size() ? typed.size() - name.size() : name.size() - typed.size();
    bool prefix = name.size() > typed.size() && name.starts_with(typed);
    if (!prefix && length_gap >= best_distance) continue;
    size_t distance = prefix ? 1 : EditDistance(typed, name);
    if (distance < best_distance) best_distance = distance, best = name;
  }
  return best;
}

std::string DidYouMean(std::string_view typed, const std::vector<std::string>& names) {
  std::string closest = ClosestName(typed, names);
  return closest.empty() ? "" : "; did you mean '" + closest + "'?";
}

}  // namespace napiscope
