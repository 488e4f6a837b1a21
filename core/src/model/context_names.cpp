// Stable names of context kinds, softirq sites and interrupts, as the reports print them.
#include "napiscope/contexts.h"

#include <fmt/format.h>

namespace napiscope {

std::string_view ContextKindName(ContextKind kind) {
  switch (kind) {
    case ContextKind::kTask:
      return "task";
    case ContextKind::kHardirq:
      return "hardirq";
    case ContextKind::kSoftirq:
      return "softirq";
    case ContextKind::kNapiPoll:
      return "napi_poll";
  }
  return "";
}

std::string_view SoftirqSiteName(SoftirqSite site) {
  switch (site) {
    case SoftirqSite::kNone:
      return "";
    case SoftirqSite::kIrqExit:
      return "irq_exit";
    case SoftirqSite::kTaskBhEnable:
      return "task_bh_enable";
    case SoftirqSite::kIrqThread:
      return "irq_thread";
    case SoftirqSite::kKsoftirqd:
      return "ksoftirqd";
    case SoftirqSite::kNapiKthread:
      return "napi_kthread";
    case SoftirqSite::kSoftirqThread:
      return "softirq_thread";
    case SoftirqSite::kUnknown:
      return "unknown";
  }
  return "";
}

SoftirqSite SoftirqSiteOfTask(TaskClass task_class) {
  switch (task_class) {
    case TaskClass::kKsoftirqd:
      return SoftirqSite::kKsoftirqd;
    case TaskClass::kIrqThread:
      return SoftirqSite::kIrqThread;
    case TaskClass::kNapiKthread:
      return SoftirqSite::kNapiKthread;
    case TaskClass::kSoftirqThread:
      return SoftirqSite::kSoftirqThread;
    default:
      return SoftirqSite::kTaskBhEnable;
  }
}

std::string InterruptLabel(int32_t irq, bool x86_vector, std::string_view device_word) {
  std::string_view kind = InterruptKindName(x86_vector, device_word);
  return kind.empty() ? std::to_string(irq) : fmt::format("{} {}", kind, irq);
}

}  // namespace napiscope
