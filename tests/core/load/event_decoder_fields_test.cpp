// The trace.dat decoder reads exactly the fields the event schema marks decoded: changing any
// other field of a record leaves the decoded Event as it was, changing a decoded one does not
// (a field read in the decoder but not marked in the table fails here). And the text parser
// reads the raw fields libtraceevent prints of the same record (`trace-cmd report -R`) into the
// same Event, for every kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <traceevent/event-parse.h>

#include "load/event_decoder.h"
#include "load/text_fields.h"
#include "load/text_line_parser.h"
#include "napiscope/event_schema.h"
#include "napiscope/string_table.h"
#include "tracegen/event_describe.h"
#include "tracegen/format_catalog.h"

namespace napiscope::internal {
namespace {

using tracegen::EventLayout;
using tracegen::FormatCatalog;

using TepHandle = std::unique_ptr<tep_handle, decltype(&tep_free)>;

// A parser of every format in testdata/formats, for little-endian 64-bit records.
TepHandle ParseShippedFormats() {
  TepHandle tep(tep_alloc(), &tep_free);
  tep_set_loglevel(TEP_LOG_NONE);
  tep_set_file_bigendian(tep.get(), TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep.get(), TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep.get(), 8);
  for (const EventLayout& layout : FormatCatalog::Embedded().events()) {
    tep_parse_event(tep.get(), layout.format_text.data(), layout.format_text.size(),
                    layout.system.c_str());
  }
  return tep;
}

bool IsCharArray(const EventLayout& layout, const std::string& field) {
  return layout.format_text.find("char " + field + "[") != std::string_view::npos;
}

// A record of `layout` whose every field holds a distinct value (small numbers, strings
// "field<i>"); the field named `changed` (if any) holds another one. With `high_bytes`, every
// byte of an integer field is set and the top bit of its last one too (negative when signed).
std::string RecordOf(const EventLayout& layout, std::string_view changed, bool high_bytes = false) {
  std::string record(layout.fixed_size, '\0');
  const tracegen::FieldLayout type = layout.Field("common_type");
  const uint16_t id = static_cast<uint16_t>(layout.id);
  std::memcpy(record.data() + type.offset, &id, sizeof(id));
  for (size_t i = 0; i < layout.fields.size(); ++i) {
    const auto& [name, field] = layout.fields[i];
    if (name.starts_with("common_")) continue;
    const int bump = name == changed ? 1 : 0;
    std::string text = "field" + std::to_string(i);
    text.back() = static_cast<char>(text.back() + bump);
    if (field.data_loc) {
      const uint32_t locator = static_cast<uint32_t>((text.size() + 1) << 16 | record.size());
      record.append(text).push_back('\0');
      std::memcpy(record.data() + field.offset, &locator, sizeof(locator));
    } else if (IsCharArray(layout, name)) {
      record.replace(field.offset, text.size(), text);
    } else {
      for (int byte = 0; byte < field.size; ++byte) {  // little-endian 10 * i + 1 + bump
        char high = static_cast<char>(byte == field.size - 1 ? 0x80 | byte : 0x40 | byte);
        record[field.offset + byte] = byte == 0    ? static_cast<char>(10 * i + 1 + bump)
                                      : high_bytes ? high
                                                   : '\0';
      }
    }
  }
  return record;
}

// The fields as `trace-cmd report -R` prints them: libtraceevent's tep_print_fields.
std::string RawFieldsOf(tep_handle* tep, const EventLayout& layout, std::string& record) {
  trace_seq seq;
  trace_seq_init(&seq);
  tep_print_fields(&seq, record.data(), static_cast<int>(record.size()),
                   tep_find_event(tep, layout.id));
  trace_seq_terminate(&seq);
  std::string text(TrimSpaces(std::string_view(seq.buffer, seq.len)));
  trace_seq_destroy(&seq);
  return text;
}

TEST(EventDecoderFields, ReadsExactlyTheFieldsTheSchemaMarksDecoded) {
  TepHandle tep = ParseShippedFormats();
  StringTable strings;
  EventDecoder decoder(TraceFormats{tep.get(), {}}, &strings);
  int checked_kinds = 0;
  for (const EventLayout& layout : FormatCatalog::Embedded().events()) {
    const EventKind kind = EventKindOf(layout.system, layout.name);
    if (kind == EventKind::kOther) continue;
    ++checked_kinds;
    SCOPED_TRACE(layout.system + ":" + layout.name);
    std::string base_record = RecordOf(layout, "");
    Event base;
    ASSERT_TRUE(decoder.Decode(base_record.data(), static_cast<int>(base_record.size()), &base));
    ASSERT_EQ(base.kind, kind);
    for (const auto& entry : layout.fields) {
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const std::string& name = entry.first;
      if (name.starts_with("common_")) continue;
      const std::span<const SchemaField> fields = SchemaOf(kind).fields;
      const bool decoded = std::ranges::any_of(
          fields, [&](const SchemaField& f) { return f.name == name && f.decoded; });
      std::string record = RecordOf(layout, name);
      Event event;
      ASSERT_TRUE(decoder.Decode(record.data(), static_cast<int>(record.size()), &event));
      EXPECT_EQ(SameEventContent(event, base), !decoded)
          << name
          << (decoded ? ": marked decoded, but the decoder ignores it"
                      : ": read by the decoder, but the schema does not mark it decoded");
    }
  }
  EXPECT_GE(checked_kinds, 20);
}

TEST(EventDecoderFields, TheRawFieldsOfEveryKindParseAsTheDecoderReadsThem) {
  TepHandle tep = ParseShippedFormats();
  StringTable decoded_strings, parsed_strings;
  EventDecoder decoder(TraceFormats{tep.get(), {}}, &decoded_strings);
  for (const EventLayout& layout : FormatCatalog::Embedded().events()) {
    const EventKind kind = EventKindOf(layout.system, layout.name);
    if (kind == EventKind::kOther) continue;
    std::string record = RecordOf(layout, "");
    Event decoded;
    ASSERT_TRUE(decoder.Decode(record.data(), static_cast<int>(record.size()), &decoded));
    const std::string raw = RawFieldsOf(tep.get(), layout, record);
    SCOPED_TRACE(layout.system + ":" + layout.name + ": " + raw);
    Event parsed = decoded;
    parsed.name = parsed_strings.Intern(layout.name);
    ASSERT_TRUE(ParseEventFields(raw, parsed_strings, &parsed));
    EXPECT_EQ(tracegen::DescribeEvent(parsed, parsed_strings),
              tracegen::DescribeEvent(decoded, decoded_strings));
  }
}

// `record` of `layout` as a big-endian machine writes it: every integer field's bytes reversed.
std::string BigEndianRecord(const EventLayout& layout, std::string record) {
  for (const auto& [name, field] : layout.fields) {
    if (IsCharArray(layout, name)) continue;
    const int size = field.data_loc ? 4 : field.size;
    std::reverse(record.begin() + field.offset, record.begin() + field.offset + size);
  }
  return record;
}

// Integers with every byte set, negative when signed. Where the record has 8 bytes from a field
// on, the decoder reads them at once and keeps the field's own; elsewhere, and for a file of the
// other byte order, it reads the field byte by size and swaps. Both ways read the same values.
TEST(EventDecoderFields, IntegersOfEveryWidthAndSignReadAlikeInEitherByteOrder) {
  TepHandle little = ParseShippedFormats();
  TepHandle big = ParseShippedFormats();
  tep_set_file_bigendian(big.get(), TEP_BIG_ENDIAN);
  StringTable little_strings, big_strings;
  EventDecoder little_decoder(TraceFormats{little.get(), {}}, &little_strings);
  EventDecoder big_decoder(TraceFormats{big.get(), {}}, &big_strings);
  int negative_fields = 0;
  for (const EventLayout& layout : FormatCatalog::Embedded().events()) {
    if (EventKindOf(layout.system, layout.name) == EventKind::kOther) continue;
    SCOPED_TRACE(layout.system + ":" + layout.name);
    const std::string record = RecordOf(layout, "", /*high_bytes=*/true);
    const std::string swapped = BigEndianRecord(layout, record);
    Event native, other;
    ASSERT_TRUE(little_decoder.Decode(record.data(), static_cast<int>(record.size()), &native));
    ASSERT_TRUE(big_decoder.Decode(swapped.data(), static_cast<int>(swapped.size()), &other));
    EXPECT_EQ(tracegen::DescribeEvent(native, little_strings),
              tracegen::DescribeEvent(other, big_strings));
    const std::string described = tracegen::DescribeEvent(native, little_strings);
    negative_fields += static_cast<int>(std::count(described.begin(), described.end(), '-'));
  }
  EXPECT_GE(negative_fields, 10);  // the signed fields did come out negative
}

}  // namespace
}  // namespace napiscope::internal
