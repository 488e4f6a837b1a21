#include <algorithm>

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include "napiscope/record.h"

namespace napiscope {
namespace {

struct Preset {
  const char* name;
  std::vector<std::string> events;
};

// The events docs/record.md lists; docs/definitions.md says why each matters.
const std::vector<Preset>& Presets() {
  static const std::vector<Preset> kPresets = {
      {"napiscope",
       {"sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup",
        "sched:sched_wakeup_new", "sched:sched_migrate_task", "sched:sched_pi_setprio",
        "sched:sched_process_fork", "sched:sched_process_exit", "irq:irq_handler_entry",
        "irq:irq_handler_exit", "irq:softirq_raise", "irq:softirq_entry", "irq:softirq_exit",
        "napi:napi_poll", "net:netif_receive_skb", "net:netif_rx", "net:net_dev_xmit",
        "irq_vectors:*"}},
      {"minimal",
       {"sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup",
        "sched:sched_migrate_task", "irq:irq_handler_entry", "irq:irq_handler_exit",
        "irq:softirq_raise", "irq:softirq_entry", "irq:softirq_exit", "napi:napi_poll"}},
  };
  return kPresets;
}

}  // namespace

std::vector<std::string> EventPresetNames() {
  std::vector<std::string> names;
  for (const Preset& preset : Presets()) names.emplace_back(preset.name);
  return names;
}

absl::StatusOr<std::vector<std::string>> ResolveEventPreset(const std::string& preset_or_list) {
  std::vector<std::string> events;
  auto add = [&events](absl::string_view event) {
    if (std::find(events.begin(), events.end(), event) == events.end()) events.emplace_back(event);
  };
  for (absl::string_view item : absl::StrSplit(preset_or_list, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    auto preset = std::find_if(Presets().begin(), Presets().end(),
                               [item](const Preset& p) { return item == p.name; });
    if (preset != Presets().end()) {
      for (const std::string& event : preset->events) add(event);
      continue;
    }
    // system:event, system:*, or as trace-cmd's -e a system or an event of any system (the
    // recorder looks them up in tracefs).
    size_t colon = item.find(':');
    bool named = colon == absl::string_view::npos
                     ? !item.empty()
                     : colon > 0 && colon + 1 < item.size() &&
                           item.find(':', colon + 1) == absl::string_view::npos;
    if (!named || item.find_first_of("/ ") != absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--events: '", item, "' is neither a preset (",
                                                     absl::StrJoin(EventPresetNames(), ", "),
                                                     "), system:event, a system nor an event"));
    }
    add(item);
  }
  if (events.empty()) return absl::InvalidArgumentError("--events: no event given");
  return events;
}

}  // namespace napiscope
