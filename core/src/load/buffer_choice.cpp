#include "load/buffer_choice.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "napiscope/loader.h"

namespace napiscope::internal {
namespace {

// `status` carrying the buffers a user may choose from (BufferChoices reads them).
absl::Status OfferingBuffers(absl::Status status, const std::vector<std::string>& names) {
  status.SetPayload(kBufferChoicesPayload, absl::Cord(absl::StrJoin(names, "\n")));
  return status;
}

}  // namespace

absl::Status ChooseBuffer(std::string_view wanted, bool top_has_events,
                          const std::vector<BufferHolding>& instances, std::string* chosen,
                          std::string* warning) {
  chosen->clear();
  warning->clear();
  if (!wanted.empty()) {
    std::string names;
    std::vector<std::string> choices;
    for (const BufferHolding& instance : instances) {
      if (instance.name == wanted) {
        *chosen = instance.name;
        return absl::OkStatus();
      }
      absl::StrAppend(&names, ", '", instance.name, "'");
      choices.push_back(instance.name);
    }
    return OfferingBuffers(
        absl::NotFoundError(absl::StrCat("no buffer '", std::string(wanted),
                                         "' in the file (it has the top buffer", names, ")")),
        choices);
  }
  if (top_has_events) return absl::OkStatus();
  std::vector<std::string> with_events;
  for (const BufferHolding& instance : instances) {
    if (instance.has_events) with_events.push_back(instance.name);
  }
  if (with_events.size() > 1) {
    return OfferingBuffers(
        absl::InvalidArgumentError(absl::StrCat("the top buffer holds no events, and buffers ",
                                                absl::StrJoin(with_events, ", "),
                                                " do: choose one with --buffer NAME")),
        with_events);
  }
  if (with_events.size() == 1) {
    *chosen = with_events.front();
    *warning = absl::StrCat("the top buffer holds no events: read buffer '", *chosen, "' instead");
  }
  return absl::OkStatus();
}

}  // namespace napiscope::internal
