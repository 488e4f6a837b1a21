#include "load/buffer_choice.h"

#include <absl/strings/str_cat.h>

namespace napiscope::internal {

absl::Status ChooseBuffer(std::string_view wanted, bool top_has_events,
                          const std::vector<BufferHolding>& instances, std::string* chosen,
                          std::string* warning) {
  chosen->clear();
  warning->clear();
  if (!wanted.empty()) {
    std::string names;
    for (const BufferHolding& instance : instances) {
      if (instance.name == wanted) {
        *chosen = instance.name;
        return absl::OkStatus();
      }
      absl::StrAppend(&names, ", '", instance.name, "'");
    }
    return absl::NotFoundError(absl::StrCat("no buffer '", std::string(wanted),
                                            "' in the file (it has the top buffer", names, ")"));
  }
  if (top_has_events) return absl::OkStatus();
  std::string with_events;
  int count = 0;
  for (const BufferHolding& instance : instances) {
    if (!instance.has_events) continue;
    if (count++ == 0) *chosen = instance.name;
    absl::StrAppend(&with_events, with_events.empty() ? "" : ", ", instance.name);
  }
  if (count > 1) {
    chosen->clear();
    return absl::InvalidArgumentError(absl::StrCat("the top buffer holds no events, and buffers ",
                                                   with_events,
                                                   " do: choose one with --buffer NAME"));
  }
  if (count == 1) {
    *warning = absl::StrCat("the top buffer holds no events: read buffer '", *chosen, "' instead");
  }
  return absl::OkStatus();
}

}  // namespace napiscope::internal
