// Which buffer of a trace to read: trace.dat files and trace-cmd report text can hold the events
// of several tracefs instances (trace-cmd record -B NAME) beside the top buffer's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>

namespace napiscope::internal {

/// A buffer instance of a trace: its name and whether it holds events.
struct BufferHolding {
  std::string name;         ///< the instance's name
  bool has_events = false;  ///< it holds at least one event
};

/// Chooses the buffer to read into `*chosen` ("" for the top buffer): `wanted` when not empty
/// (an error naming the trace's buffers when it has no such instance); else the top buffer,
/// unless it holds no events and exactly one instance does (`*warning` then says so), or several
/// do (an error naming them).
absl::Status ChooseBuffer(std::string_view wanted, bool top_has_events,
                          const std::vector<BufferHolding>& instances, std::string* chosen,
                          std::string* warning);

}  // namespace napiscope::internal
