// Stable names of context kinds and softirq sites, as the reports print them.
#include "napiscope/contexts.h"

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

}  // namespace napiscope
