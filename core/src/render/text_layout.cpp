#include "render/text_layout.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "napiscope/text_wrap.h"

namespace napiscope::internal {

TextTable::TextTable(std::vector<std::string> headers, size_t key_columns)
    : key_columns_(std::min(key_columns, headers.size())) {
  for (std::string& header : headers) {
    bool left = header.starts_with('<');
    left_.push_back(left);
    headers_.push_back(left ? header.substr(1) : std::move(header));
  }
}

void TextTable::Add(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::Render(const std::vector<size_t>& columns, const std::vector<size_t>& widths,
                       size_t width, bool wrap_last, std::vector<std::string>& lines) const {
  auto render = [&](const std::vector<std::string>& cells, bool is_header) {
    std::string line = " ";
    for (size_t i : columns) {
      line += ' ';
      bool wrapped = wrap_last && !is_header && i == columns.back();
      if (wrapped) {
        // The free text starts where its column does and continues under it.
        for (std::string& part : Wrap(cells[i], width, line, std::string(line.size(), ' '))) {
          part.erase(part.find_last_not_of(' ') + 1);
          lines.push_back(std::move(part));
        }
        return;
      }
      line += left_[i] ? fmt::format("{:<{}}", cells[i], widths[i])
                       : fmt::format("{:>{}}", cells[i], widths[i]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    lines.push_back(std::move(line));
  };
  render(headers_, true);
  for (const auto& row : rows_) render(row, false);
}

std::vector<std::string> TextTable::Lines(size_t width) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t i = 0; i < headers_.size(); ++i) widths[i] = headers_[i].size();
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  // A line is a space, then a space and the cell for each column.
  auto span = [&](const std::vector<size_t>& columns) {
    size_t total = 1;
    for (size_t i : columns) total += 1 + widths[i];
    return total;
  };
  std::vector<size_t> all(headers_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::string> lines;
  if (width == 0 || all.empty() || span(all) <= width) {
    Render(all, widths, 0, false, lines);
    return lines;
  }
  // Free text last: wrapped under its column when it keeps room for a few words there.
  constexpr size_t kFreeTextRoom = 24;
  size_t last = all.back();
  if (left_[last] && span(all) - widths[last] + kFreeTextRoom <= width) {
    Render(all, widths, width, true, lines);
    return lines;
  }
  // Else the columns after the keys in parts as wide as fit (at least one column each).
  std::vector<size_t> keys(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(key_columns_));
  for (size_t next = key_columns_; next < all.size();) {
    std::vector<size_t> part = keys;
    part.push_back(next++);
    while (next < all.size() && span(part) + 1 + widths[next] <= width) part.push_back(next++);
    if (!lines.empty()) lines.push_back("");
    Render(part, widths, width, left_[part.back()] && part.back() == last, lines);
  }
  return lines;
}

void TextTable::AppendTo(size_t width, std::vector<std::string>& lines) const {
  for (std::string& line : Lines(width)) lines.push_back(std::move(line));
}

std::vector<std::string> Wrap(std::string_view text, size_t width, std::string_view first_prefix) {
  return Wrap(text, width, first_prefix, std::string(first_prefix.size(), ' '));
}

namespace {

// The lines of WrapPieces, without their newlines.
std::vector<std::string> PieceLines(const std::vector<std::string>& pieces,
                                    std::string_view separator, size_t width,
                                    std::string_view first_prefix, std::string_view rest_prefix) {
  std::vector<std::string> lines;
  std::string line(first_prefix);
  bool line_has_piece = false;
  for (const std::string& piece : pieces) {
    if (line_has_piece && width > 0 && line.size() + separator.size() + piece.size() > width) {
      lines.push_back(std::move(line));
      line = rest_prefix;
      line_has_piece = false;
    }
    if (line_has_piece) line += separator;
    line += piece;
    line_has_piece = true;
  }
  lines.push_back(std::move(line));
  return lines;
}

// A duration's unit (ns, us, ms, s), with the punctuation that may follow it.
bool IsTimeUnit(std::string_view word) {
  word = word.substr(0, word.find_last_not_of(",;:.)") + 1);
  return word == "ns" || word == "us" || word == "ms" || word == "s";
}

// The words of `text`; a number and the time unit after it ("1.0 us") are one word, so a line
// never ends in a number whose unit starts the next.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    if (!word.empty()) {
      if (!words.empty() && IsTimeUnit(word) &&
          std::isdigit(static_cast<unsigned char>(words.back().back()))) {
        words.back() += ' ';
        words.back() += word;
      } else {
        words.emplace_back(word);
      }
    }
    pos = end + 1;
  }
  return words;
}

}  // namespace

std::vector<std::string> Wrap(std::string_view text, size_t width, std::string_view first_prefix,
                              std::string_view rest_prefix) {
  return PieceLines(Words(text), " ", width, first_prefix, rest_prefix);
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

std::string CpuRanges(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]);
    i = j + 1;
  }
  return out;
}

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool digit_a = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    bool digit_b = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (digit_a && digit_b) {
      size_t end_a = i, end_b = j;
      while (end_a < a.size() && std::isdigit(static_cast<unsigned char>(a[end_a]))) ++end_a;
      while (end_b < b.size() && std::isdigit(static_cast<unsigned char>(b[end_b]))) ++end_b;
      std::string_view num_a = a.substr(i, end_a - i), num_b = b.substr(j, end_b - j);
      while (num_a.size() > 1 && num_a[0] == '0') num_a.remove_prefix(1);
      while (num_b.size() > 1 && num_b[0] == '0') num_b.remove_prefix(1);
      if (num_a.size() != num_b.size()) return num_a.size() < num_b.size();
      if (num_a != num_b) return num_a < num_b;
      i = end_a;
      j = end_b;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace napiscope::internal

namespace napiscope {

std::string WrapPieces(const std::vector<std::string>& pieces, std::string_view separator,
                       size_t width, std::string_view first_prefix, std::string_view rest_prefix) {
  return internal::JoinLines(
      internal::PieceLines(pieces, separator, width, first_prefix, rest_prefix));
}

std::string WrapWords(std::string_view text, size_t width, std::string_view first_prefix,
                      std::string_view rest_prefix) {
  return internal::JoinLines(internal::Wrap(text, width, first_prefix, rest_prefix));
}

}  // namespace napiscope
