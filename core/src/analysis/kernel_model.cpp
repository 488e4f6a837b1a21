#include "analysis/kernel_model.h"

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "napiscope/phrasing.h"

namespace napiscope::internal {
namespace {

// Device IRQs that fired and how many of them have an IRQ thread that ran (forced threading
// gives every device IRQ one on PREEMPT_RT; threadirqs does too on other kernels).
// x86 interrupt vectors (irq_vectors:*) and timer IRQs are never threaded, on RT either.
bool IsDeviceIrq(const HardirqRuntimeRow& row) {
  static const std::set<std::string, std::less<>> kVectors = {
      "local_timer",    "spurious_apic", "error_apic",     "x86_platform_ipi",
      "irq_work",       "reschedule",    "call_function",  "call_function_single",
      "threshold_apic", "deferred_error", "thermal_apic",  "reboot"};
  return row.irq.known() && !kVectors.contains(row.name) &&
         row.name.find("timer") == std::string::npos;
}

std::pair<int64_t, int64_t> ThreadedDeviceIrqs(const Report& report) {
  std::set<int32_t> fired;
  for (const HardirqRuntimeRow& row : report.hardirq_runtime) {
    if (IsDeviceIrq(row)) fired.insert(row.irq.number);
  }
  std::set<int32_t> threaded;
  for (const ThreadActivityRow& row : report.irq_threads) {
    if (fired.contains(row.irq)) threaded.insert(row.irq);
  }
  return {static_cast<int64_t>(fired.size()), static_cast<int64_t>(threaded.size())};
}

}  // namespace

KernelModel JudgeKernelModel(const Report& report) {
  KernelModel model;
  model.irq_threads = static_cast<int64_t>(report.irq_threads.size());
  std::vector<std::string> rt_thread_names;
  for (const ThreadActivityRow& row : report.ksoftirqd) {
    if (row.task_class != TaskClass::kSoftirqThread) continue;
    ++model.softirq_threads;
    if (rt_thread_names.size() < 3) rt_thread_names.push_back(row.comm);
  }
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    for (const auto& [site, count] : row.ran_in) {
      if (site == SoftirqSite::kIrqExit) model.softirqs_at_irq_exit += count;
      if (site == SoftirqSite::kIrqThread || site == SoftirqSite::kKsoftirqd ||
          site == SoftirqSite::kNapiKthread || site == SoftirqSite::kSoftirqThread) {
        model.softirqs_in_threads += count;
      }
      if (site == SoftirqSite::kSoftirqThread) model.softirqs_in_softirq_threads += count;
    }
  }
  auto [device_irqs, threaded_irqs] = ThreadedDeviceIrqs(report);
  const TraceMeta& meta = report.trace.meta;
  std::string counts = fmt::format("{} ran; softirq runs: {} at hard-IRQ exit, {} in threads",
                                   Counted(model.irq_threads, "IRQ thread"),
                                   model.softirqs_at_irq_exit, model.softirqs_in_threads);
  if (model.softirq_threads > 0) {
    counts += fmt::format(" ({} in RT softirq threads: {} ran)", model.softirqs_in_softirq_threads,
                          fmt::join(rt_thread_names, ", "));
  }
  if (device_irqs > 0 && model.irq_threads > 0) {
    counts += fmt::format("; {} of {} {} an IRQ thread", threaded_irqs,
                          Counted(device_irqs, "device IRQ"), threaded_irqs == 1 ? "has" : "have");
  }
  bool uname_rt = meta.uname.find("PREEMPT_RT") != std::string::npos ||
                  meta.kernel_release.find("-rt") != std::string::npos;
  bool never_at_exit = model.softirqs_at_irq_exit == 0;
  if (uname_rt) {
    model.preempt_rt = "yes";
    model.evidence_used.push_back("uname");
    model.evidence = fmt::format("uname says so ({}); {}", meta.kernel_release, counts);
  } else if (model.softirq_threads > 0 && never_at_exit) {
    // sirq-*/softirq-* (2.6.x-rt), ktimersoftd (3.x-4.x rt) and ktimers (6.x rt) exist only
    // on PREEMPT_RT kernels.
    model.preempt_rt = "likely";
    model.evidence_used = {"rt_softirq_threads", "softirq_sites"};
    model.evidence = counts + "; softirq threads that only PREEMPT_RT kernels have, and no "
                              "softirq at hard-IRQ exit";
  } else if (threaded_irqs > 0 && threaded_irqs == device_irqs && never_at_exit &&
             model.softirqs_in_threads > 0) {
    model.preempt_rt = "likely";
    model.evidence_used = {"forced_irq_threads", "softirq_sites"};
    model.evidence = counts + ": every device IRQ threaded and softirqs never at hard-IRQ exit, "
                              "as on PREEMPT_RT";
  } else if (model.irq_threads > 0 && never_at_exit && model.softirqs_in_threads > 0) {
    // PREEMPT_RT forces IRQ threads and never runs softirqs at hard-IRQ exit.
    model.preempt_rt = "likely";
    model.evidence_used = {"irq_threads", "softirq_sites"};
    model.evidence = counts + ", never at hard-IRQ exit, as on PREEMPT_RT";
  } else if (!never_at_exit) {
    model.preempt_rt = "no";
    model.evidence_used = {"softirq_sites"};
    model.evidence = counts + "; PREEMPT_RT does not run softirqs at hard-IRQ exit";
  } else {
    model.evidence = counts + "; not enough to tell";
  }
  return model;
}

}  // namespace napiscope::internal
