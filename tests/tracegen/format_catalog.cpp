#include "tracegen/format_catalog.h"

#include <charconv>
#include <cstdlib>

#include <absl/strings/str_cat.h>

namespace napiscope::tracegen {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// The integer after `key` ("offset:") up to the next ';'.
bool NumberAfter(std::string_view line, std::string_view key, int* value) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return false;
  std::string_view rest = line.substr(at + key.size());
  rest = rest.substr(0, rest.find(';'));
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), *value);
  return error == std::errc() && end == rest.data() + rest.size();
}

// "field:__data_loc char[] name;" -> name "name", data_loc true.
bool ParseFieldLine(std::string_view line, std::string* name, FieldLayout* field) {
  std::string_view declaration = line.substr(6, line.find(';') - 6);
  size_t bracket = declaration.find('[');
  // Array sizes follow the name ("char comm[16]"); __data_loc has "char[]" before it.
  if (bracket != std::string_view::npos &&
      declaration.find(']', bracket) == declaration.size() - 1) {
    declaration = declaration.substr(0, bracket);
  }
  size_t space = declaration.find_last_of(" *");
  if (space == std::string_view::npos) return false;
  *name = std::string(declaration.substr(space + 1));
  field->data_loc = line.find("__data_loc") != std::string_view::npos;
  return NumberAfter(line, "offset:", &field->offset) && NumberAfter(line, "size:", &field->size);
}

}  // namespace

FieldLayout EventLayout::Field(std::string_view field) const {
  for (const auto& [field_name, layout] : fields) {
    if (field_name == field) return layout;
  }
  return FieldLayout();
}

absl::Status ParseEventFormat(std::string_view text, std::string system, EventLayout* layout) {
  *layout = EventLayout();
  layout->system = std::move(system);
  layout->format_text = text;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(begin, end - begin));
    begin = end + 1;
    if (line.starts_with("name: ")) {
      layout->name = std::string(line.substr(6));
    } else if (line.starts_with("ID: ")) {
      std::string_view id = line.substr(4);
      std::from_chars(id.data(), id.data() + id.size(), layout->id);
    } else if (line.starts_with("field:")) {
      std::string name;
      FieldLayout field;
      if (!ParseFieldLine(line, &name, &field)) {
        return absl::InvalidArgumentError(absl::StrCat("bad field line '", std::string(line), "'"));
      }
      layout->fixed_size = std::max(layout->fixed_size, field.offset + field.size);
      layout->fields.emplace_back(std::move(name), field);
    }
  }
  if (layout->name.empty() || layout->id <= 0 || layout->fields.empty()) {
    return absl::InvalidArgumentError("format has no name, ID or fields");
  }
  return absl::OkStatus();
}

const FormatCatalog& FormatCatalog::Embedded() {
  static const FormatCatalog* catalog = [] {
    auto* built = new FormatCatalog();
    for (const EmbeddedFormat& file : EmbeddedFormats()) {
      if (file.path == "header_page") {
        built->header_page_ = file.text;
        continue;
      }
      if (file.path == "header_event") {
        built->header_event_ = file.text;
        continue;
      }
      EventLayout layout;
      std::string system(file.path.substr(0, file.path.find('/')));
      absl::Status status = ParseEventFormat(file.text, system, &layout);
      if (!status.ok()) std::abort();  // the embedded files are part of the build
      built->events_.push_back(std::move(layout));
    }
    return built;
  }();
  return *catalog;
}

const EventLayout* FormatCatalog::Find(std::string_view name) const {
  for (const EventLayout& event : events_) {
    if (event.name == name) return &event;
  }
  return nullptr;
}

}  // namespace napiscope::tracegen
