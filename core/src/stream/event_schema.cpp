#include "napiscope/event_schema.h"

namespace napiscope {

std::string_view EventKindName(EventKind kind) {
  size_t index = static_cast<size_t>(kind);
  return index < kEventSchemas.size() ? kEventSchemas[index].name : std::string_view();
}

EventKind EventKindFromName(std::string_view name) {
  if (name.empty()) return EventKind::kOther;
  for (const EventSchema& schema : kEventSchemas) {
    if (schema.name == name) return schema.kind;
  }
  if (!IrqVectorBaseName(name).empty()) {
    return name.ends_with("_entry") ? EventKind::kIrqVectorEntry : EventKind::kIrqVectorExit;
  }
  return EventKind::kOther;
}

EventKind EventKindOf(std::string_view system, std::string_view name) {
  EventKind kind = EventKindFromName(name);
  // Kinds named by a pattern, not by one kernel name, are trusted only in their system.
  if (SchemaOf(kind).name.empty() && system != SchemaOf(kind).system) return EventKind::kOther;
  return kind;
}

}  // namespace napiscope
