#include "help_formatter.h"

#include <algorithm>

#include "cli_common.h"
#include "napiscope/text_wrap.h"

namespace napiscope::cli {

HelpFormatter::HelpFormatter(size_t width) : width_(width) {}

std::string HelpFormatter::TwoColumns(const std::string& name, const std::string& description,
                                      size_t column) const {
  std::string left = "  " + name;
  if (description.empty()) return left + "\n";
  // A narrow terminal leaves the right column too few words a line: descriptions go under
  // their names instead.
  constexpr size_t kNarrowestDescription = 36;
  constexpr size_t kUnderNameIndent = 6;
  if (width_ < column + kNarrowestDescription) column = kUnderNameIndent;
  std::string indent(column, ' ');
  std::string out;
  std::string first_prefix = left;
  if (left.size() >= column) {
    out = left + "\n";
    first_prefix = indent;
  } else {
    first_prefix.resize(column, ' ');
  }
  // A description's own line breaks stay; each of its lines is wrapped in the right column.
  size_t start = 0;
  while (start < description.size()) {
    size_t end = std::min(description.find('\n', start), description.size());
    out += WrapWords(std::string_view(description).substr(start, end - start), width_, first_prefix,
                     indent);
    first_prefix = indent;
    start = end + 1;
  }
  return out;
}

std::string HelpFormatter::Paragraphs(const std::string& text) const {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = std::string_view(text).substr(start, end - start);
    // Indented lines are examples, whole so they can be copied.
    bool example = line.starts_with(' ');
    out += example || line.empty() ? std::string(line) + "\n" : WrapWords(line, width_, "", "");
    start = end + 1;
  }
  return out;
}

std::string HelpFormatter::make_option(const CLI::Option* option, bool is_positional) const {
  return TwoColumns(make_option_name(option, is_positional) + make_option_opts(option),
                    make_option_desc(option), get_column_width());
}

std::string HelpFormatter::make_subcommand(const CLI::App* command) const {
  // Command names are short: their column is as wide as the longest needs.
  size_t longest = 0;
  for (const CLI::App* sibling : command->get_parent()->get_subcommands({})) {
    longest = std::max(longest, sibling->get_display_name(true).size());
  }
  constexpr size_t kIndentAndGap = 4;
  return TwoColumns(command->get_display_name(true), command->get_description(),
                    std::min(get_column_width(), longest + kIndentAndGap));
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return Paragraphs(CLI::Formatter::make_description(app));
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  return Paragraphs(CLI::Formatter::make_footer(app));
}

size_t HelpWidth() {
  constexpr size_t kNarrowest = 40;
  constexpr size_t kWidest = 100;
  return std::clamp(TextWidth(-1, 80), kNarrowest, kWidest);
}

}  // namespace napiscope::cli
