// The listeners of the fact producers, shared by the producers that call them.
#pragma once

#include <vector>

#include "napiscope/facts.h"

namespace napiscope::internal {

/// Calls every listener in the order added.
struct FactBus {
  std::vector<FactListener*> listeners;

  /// Calls `call(listener)` for each listener.
  template <typename Call>
  void Each(Call&& call) const {
    for (FactListener* listener : listeners) call(*listener);
  }
};

}  // namespace napiscope::internal
