#include "load/tracedat_tep.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <absl/strings/str_cat.h>
#include <traceevent/event-parse.h>

#include "load/tracedat_checks.h"
#include "napiscope/event.h"
#include "napiscope/event_schema.h"
#include "napiscope/format.h"

namespace napiscope::internal {
namespace {

// The value of the "key: value" line of a format text, "" when it has none.
std::string_view LineValue(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (line.size() > key.size() && line.substr(0, key.size()) == key) {
      return line.substr(key.size());
    }
    if (line.rfind("format:", 0) == 0) break;  // name and ID come before the fields
    at = end + 1;
  }
  return {};
}

// The name and id a format text starts with; false when it lacks either.
bool ScanIdentity(std::string_view text, FormatIdentity* identity) {
  std::string_view name = LineValue(text, "name: ");
  std::string_view id = LineValue(text, "ID: ");
  if (name.empty() || id.empty()) return false;
  auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), identity->id);
  if (error != std::errc() || identity->id < 0) return false;
  identity->name = std::string(name);
  return true;
}

// Formats napiscope reads fields of: the kinds it decodes.
bool IsDecoded(const FormatIdentity& identity) {
  return identity.system != "ftrace" &&
         EventKindOf(identity.system, identity.name) != EventKind::kOther;
}

}  // namespace

void TepFree::operator()(tep_handle* tep) const { tep_free(tep); }

absl::Status CheckDecodedFieldsFit(tep_handle* tep, int page_size) {
  const int64_t limit = page_size > 0 ? page_size : int64_t{1} << 24;
  int count = tep_get_events_count(tep);
  for (int i = 0; i < count; ++i) {
    tep_event* event = tep_get_event(tep, i);
    if (event == nullptr || event->name == nullptr) continue;
    // Event 0 gives every event its common fields; the others only matter when decoded.
    if (i != 0 &&
        EventKindOf(event->system ? event->system : "", event->name) == EventKind::kOther) {
      continue;
    }
    for (tep_format_field* list : {event->format.common_fields, event->format.fields}) {
      for (tep_format_field* field = list; field != nullptr; field = field->next) {
        if (field->offset >= 0 && field->size >= 0 &&
            int64_t{field->offset} + field->size <= limit) {
          continue;
        }
        return absl::DataLossError(absl::StrCat(
            "corrupt event format: field ", OneLine(field->name ? field->name : ""), " of ",
            OneLine(event->system ? event->system : ""), ":", OneLine(event->name),
            " (offset ", field->offset, ", size ", field->size, ") lies outside a ", limit,
            "-byte page"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status BuildTracedatParser(const TraceDatHeader& header, TracedatParser* parser) {
  std::vector<FormatIdentity> identities(header.event_formats.size());
  std::vector<size_t> to_parse;
  std::vector<bool> named(header.event_formats.size(), false);
  for (size_t i = 0; i < header.event_formats.size(); ++i) {
    const auto& [system, text] = header.event_formats[i];
    identities[i].system = system;
    named[i] = ScanIdentity(text, &identities[i]);
    if (named[i] && IsDecoded(identities[i])) to_parse.push_back(i);
  }
  // The common fields (type, flags, pid) come from any parsed format; prefer a real event's.
  if (to_parse.empty()) {
    auto first = std::find_if(identities.begin(), identities.end(),
                              [](const FormatIdentity& f) { return f.system != "ftrace"; });
    if (first == identities.end()) first = identities.begin();
    for (auto it = first; it != identities.end() && to_parse.empty(); ++it) {
      if (named[it - identities.begin()]) to_parse.push_back(it - identities.begin());
    }
  }
  absl::Status status = CheckEventFormatsParse(header, to_parse);
  if (!status.ok()) return status;

  parser->tep.reset(tep_alloc());
  tep_handle* tep = parser->tep.get();
  if (tep == nullptr) return absl::ResourceExhaustedError("out of memory for the event parser");
  tep_set_loglevel(TEP_LOG_NONE);
  tep_set_file_bigendian(tep, header.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
                                                                       : TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep, header.long_size);
  tep_set_page_size(tep, header.page_size);
  tep_set_cpus(tep, header.cpus);
  std::vector<bool> parsed(identities.size(), false);
  for (size_t i : to_parse) {
    const auto& [system, text] = header.event_formats[i];
    // libtraceevent keeps a format whose fields or print fmt it could not fully read (as
    // libtracecmd does), so the format is usable exactly when its id is now known.
    tep_parse_event(tep, text.data(), text.size(), system.c_str());
    parsed[i] = tep_find_event(tep, identities[i].id) != nullptr;
    if (!parsed[i]) {
      parser->warnings.push_back(absl::StrCat("the format of ", OneLine(system), ":",
                                              OneLine(identities[i].name),
                                              " does not parse; its events are not analysed"));
    }
  }
  parser->formats.tep = tep;
  for (size_t i = 0; i < identities.size(); ++i) {
    if (!named[i]) continue;
    parser->event_formats.push_back(absl::StrCat(identities[i].system, ":", identities[i].name));
    if (!parsed[i]) parser->formats.unparsed.push_back(std::move(identities[i]));
  }
  std::sort(parser->event_formats.begin(), parser->event_formats.end());
  status = CheckDecodedFieldsFit(tep, header.page_size);
  if (!status.ok()) return status;
  if (!header.saved_cmdlines.empty()) {
    tep_parse_saved_cmdlines(tep, header.saved_cmdlines.c_str());
  }
  return absl::OkStatus();
}

}  // namespace napiscope::internal
