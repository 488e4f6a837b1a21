#include "analysis/kernel_model.h"

#include <fmt/format.h>

namespace napiscope::internal {

KernelModel JudgeKernelModel(const Report& report) {
  KernelModel model;
  model.irq_threads = static_cast<int64_t>(report.irq_threads.size());
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    for (const auto& [site, count] : row.ran_in) {
      if (site == SoftirqSite::kIrqExit) model.softirqs_at_irq_exit += count;
      if (site == SoftirqSite::kIrqThread || site == SoftirqSite::kKsoftirqd ||
          site == SoftirqSite::kNapiKthread) {
        model.softirqs_in_threads += count;
      }
    }
  }
  const TraceMeta& meta = report.trace.meta;
  std::string counts = fmt::format("{} IRQ threads ran; softirq runs: {} at hard-IRQ exit, {} "
                                   "in threads",
                                   model.irq_threads, model.softirqs_at_irq_exit,
                                   model.softirqs_in_threads);
  if (meta.uname.find("PREEMPT_RT") != std::string::npos ||
      meta.kernel_release.find("-rt") != std::string::npos) {
    model.preempt_rt = "yes";
    model.evidence = fmt::format("uname says so ({}); {}", meta.kernel_release, counts);
  } else if (model.irq_threads > 0 && model.softirqs_at_irq_exit == 0 &&
             model.softirqs_in_threads > 0) {
    // PREEMPT_RT forces IRQ threads and never runs softirqs at hard-IRQ exit.
    model.preempt_rt = "likely";
    model.evidence = counts + ", never at hard-IRQ exit, as on PREEMPT_RT";
  } else if (model.softirqs_at_irq_exit > 0) {
    model.preempt_rt = "no";
    model.evidence = counts + "; PREEMPT_RT does not run softirqs at hard-IRQ exit";
  } else {
    model.evidence = counts + "; not enough to tell";
  }
  return model;
}

}  // namespace napiscope::internal
