// --help text in lines of the terminal's width: CLI11 writes each description on one line, however
// long, so a command's help ran past an 80-column terminal.
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

namespace napiscope::cli {

/// CLI11's help layout (names in a left column, descriptions beside them) with every
/// description, the command's own text and the footer's paragraphs wrapped at `width` columns;
/// the footer's indented lines (examples) stay whole.
class HelpFormatter : public CLI::Formatter {
 public:
  /// Lines of at most `width` columns (a word longer than a line keeps a line of its own).
  explicit HelpFormatter(size_t width);
  /// An option's name and what it takes, its description wrapped beside them.
  std::string make_option(const CLI::Option* option, bool is_positional) const override;
  /// A command in its parent's list, in a column as wide as the longest command name needs.
  std::string make_subcommand(const CLI::App* command) const override;
  /// The command's own text, wrapped.
  std::string make_description(const CLI::App* app) const override;
  /// The footer: paragraphs wrapped, examples whole.
  std::string make_footer(const CLI::App* app) const override;

 private:
  // "  NAME" in a left column `column` wide and `description` wrapped beside it (under it when
  // NAME fills the column, or when the terminal leaves the right column too narrow).
  std::string TwoColumns(const std::string& name, const std::string& description,
                         size_t column) const;
  // Each line of `text` wrapped, but for indented lines (examples), kept whole.
  std::string Paragraphs(const std::string& text) const;

  size_t width_;
};

/// Columns for --help: the terminal's (or $COLUMNS) when known, at most 100 and at least 40;
/// 80 otherwise.
size_t HelpWidth();

}  // namespace napiscope::cli
