#include "napiscope/suggest.h"

#include <algorithm>

namespace napiscope {
namespace {

// Edits to turn `a` into `b` (Levenshtein).
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string ClosestName(std::string_view typed, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, typed.size() / 3) + 1;
  for (const std::string& name : names) {
    size_t distance = EditDistance(typed, name);
    if (name.size() > typed.size() && name.starts_with(typed)) {
      distance = std::min<size_t>(distance, 1);
    }
    if (distance < best_distance) best_distance = distance, best = name;
  }
  return best;
}

std::string DidYouMean(std::string_view typed, const std::vector<std::string>& names) {
  std::string closest = ClosestName(typed, names);
  return closest.empty() ? "" : "; did you mean '" + closest + "'?";
}

}  // namespace napiscope
