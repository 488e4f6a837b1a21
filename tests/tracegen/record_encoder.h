// Lays out an Event as the kernel would have written its ring-buffer record payload.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/event.h"
#include "napiscope/string_table.h"
#include "tracegen/format_catalog.h"

namespace napiscope::tracegen {

/// The comm of a pid, for fields an Event does not carry (sched_process_fork's parent_comm).
using CommLookup = std::function<std::string_view(int32_t pid)>;

/// Encodes Events with the field offsets of a FormatCatalog; strings come from `strings`.
class RecordEncoder {
 public:
  RecordEncoder(const FormatCatalog& catalog, const StringTable& strings, CommLookup comms);

  /// Writes the payload of `event` (common fields included) into `out`, replacing it.
  /// Fails when the catalog has no format for the event's name.
  absl::Status Encode(const Event& event, std::string* out);

 private:
  struct Recipe {
    const EventLayout* layout = nullptr;
    FieldLayout common_type, common_flags, common_pid;
    std::vector<FieldLayout> fields;  // indexed as SchemaOf(kind).fields (event_schema.h)
  };
  const Recipe* RecipeFor(const Event& event);

  const FormatCatalog& catalog_;
  const StringTable& strings_;
  CommLookup comms_;
  std::vector<Recipe> recipes_;  // indexed by the event's name id
  uint64_t next_skbaddr_ = 0xffff888100000000ull;
};

}  // namespace napiscope::tracegen
