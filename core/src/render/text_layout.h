// Layout helpers of the text renderers: aligned tables, word wrapping, CPU ranges.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace napiscope::internal {

/// A table whose columns are as wide as their widest cell; rendered with a two-space indent.
/// Wider than the terminal, a left-aligned last column of free text wraps under itself, or
/// else the columns are shown in parts of the table one under the other, each part starting
/// with the key columns that name a row.
class TextTable {
 public:
  /// Column headers; a header starting with '<' is left-aligned (the '<' is not shown), others
  /// right-aligned. The first `key_columns` columns name a row (repeated in each part).
  explicit TextTable(std::vector<std::string> headers, size_t key_columns = 1);
  /// Adds a row; missing cells are empty.
  void Add(std::vector<std::string> cells);
  /// True when no row was added.
  bool empty() const { return rows_.empty(); }
  /// The header line and the rows, trailing spaces removed, in lines of at most `width`
  /// columns where the cells allow (0: one line per row).
  std::vector<std::string> Lines(size_t width) const;
  /// Appends Lines(width) to `lines`.
  void AppendTo(size_t width, std::vector<std::string>& lines) const;

 private:
  // The header and rows with only `columns`, the last cell of a row wrapped at `width` when
  // `wrap_last` is set.
  void Render(const std::vector<size_t>& columns, const std::vector<size_t>& widths, size_t width,
              bool wrap_last, std::vector<std::string>& lines) const;

  std::vector<std::string> headers_;
  std::vector<bool> left_;
  size_t key_columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// `text` broken at spaces into lines of at most `width` columns (0: one line), the first
/// starting with `first_prefix`, the others with spaces as wide as it. A word longer than a
/// line stays whole.
std::vector<std::string> Wrap(std::string_view text, size_t width, std::string_view first_prefix);

/// As Wrap, the lines after the first starting with `rest_prefix`.
std::vector<std::string> Wrap(std::string_view text, size_t width, std::string_view first_prefix,
                              std::string_view rest_prefix);

/// The lines as one text, each ending in a newline.
std::string JoinLines(const std::vector<std::string>& lines);

/// CPU numbers as ranges: {0,1,2,5,7,8} -> "0-2,5,7-8".
std::string CpuRanges(const std::vector<int>& cpus);

/// Orders names as people count: "ksoftirqd/2" before "ksoftirqd/10".
bool NaturalLess(std::string_view a, std::string_view b);

}  // namespace napiscope::internal
