// Whether the traced kernel is PREEMPT_RT, from uname and from where softirqs ran.
#pragma once

#include "napiscope/report.h"

namespace napiscope::internal {

/// Judges the preemption model from `report`'s uname, IRQ threads and softirq sites.
KernelModel JudgeKernelModel(const Report& report);

}  // namespace napiscope::internal
