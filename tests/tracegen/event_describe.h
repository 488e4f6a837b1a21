// One canonical line per Event, so tests compare event streams of different loaders as text
// and a mismatch shows both events in full.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/event_sink.h"
#include "napiscope/string_table.h"

namespace napiscope::tracegen {

/// What a text form cannot carry, so comparisons leave it out.
struct DescribeOptions {
  uint8_t flags_mask = 0xff;          ///< common_flags bits to show
  uint16_t prev_state_mask = 0xffff;  ///< sched_switch prev_state bits to show
  bool irq_ret_as_bool = false;       ///< the print format only says handled / unhandled
};

/// "ts=… cpu=… pid=… name flags=0x… field=value …" with strings as text.
std::string DescribeEvent(const Event& event, const StringTable& strings,
                          const DescribeOptions& options = {});

/// An EventSink that keeps every event.
class CollectingSink : public EventSink {
 public:
  void OnEvent(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

}  // namespace napiscope::tracegen
