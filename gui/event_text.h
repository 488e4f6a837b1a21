// One event as the event list shows it: the task as "comm (pid)", the event name and the
// fields as `trace-cmd report` prints them; and the field values searches compare.
#pragma once

#include <QString>
#include <optional>
#include <string>
#include <string_view>

#include "napiscope/event_sink.h"

namespace napiscope::gui {

/// The event's name ("sched_switch", "local_timer_entry", "[LOST EVENTS]").
QString EventNameText(const Event& event, const StringTable& strings);

/// The task current on the CPU: "comm (pid)", "swapper/N (0)" for the idle task of CPU N.
QString EventTaskText(const Event& event, const TraceContext& context);

/// The fields as trace-cmd report prints them ("a:1 [120] S ==> b:2 [120]", "irq=30 name=eth0");
/// what napiscope does not keep is left out (skbaddr of net events, group_dead of exits).
QString EventFieldsText(const Event& event, const TraceContext& context);

/// The value of field `key` of the event for searches, as text: the fields trace-cmd prints
/// (irq, vec, name, dev, work, budget, comm, pid, prio, next_comm, prev_state, target_cpu, len,
/// ...) plus cpu, pid and comm (the current task's), event; nullopt when it has no such field.
std::optional<std::string> EventFieldValue(std::string_view key, const Event& event,
                                           const TraceContext& context);

}  // namespace napiscope::gui
