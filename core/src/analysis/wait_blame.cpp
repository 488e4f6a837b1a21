#include "napiscope/wait_blame.h"

#include <algorithm>

namespace napiscope {
namespace {

// A task's pid or a softirq's vector (hard IRQs are told apart by their InterruptId).
int32_t HolderId(const ContextFrame& frame) {
  return frame.kind == ContextKind::kSoftirq ? static_cast<int32_t>(frame.vec) : frame.pid;
}

}  // namespace

void WaitBlame::Charge(TimestampNs from_ns, TimestampNs to_ns, const ContextFrame* frame) {
  if (to_ns <= from_ns) return;
  if (frame == nullptr) {
    unknown_ns_ += to_ns - from_ns;
    return;
  }
  int32_t id = HolderId(*frame);
  bool hardirq = frame->kind == ContextKind::kHardirq;
  auto held = std::find_if(held_.begin(), held_.end(), [&](const Held& h) {
    return h.kind == frame->kind &&
           (hardirq ? h.irq == frame->irq && h.name == frame->name : h.id == id);
  });
  if (held == held_.end()) {
    held_.push_back(Held{frame->kind, id, hardirq ? frame->irq : InterruptId{}, frame->name,
                         frame->prio, frame->task_class, 0});
    held = held_.end() - 1;
  }
  held->time_ns += to_ns - from_ns;
  held->name = frame->name;  // a task's latest comm
  held->task_class = frame->task_class;
  if (frame->prio >= 0 && (held->prio < 0 || frame->prio < held->prio)) held->prio = frame->prio;
}

void WaitBlame::ChargeUnknownUpTo(int64_t total_ns) {
  int64_t charged = unknown_ns_;
  for (const Held& held : held_) charged += held.time_ns;
  if (charged < total_ns) unknown_ns_ += total_ns - charged;
}

std::vector<BlameItem> WaitBlame::Items(const StringTable& strings) const {
  std::vector<BlameItem> items;
  items.reserve(held_.size());
  for (const Held& held : held_) {
    BlameItem item;
    item.kind = held.kind;
    item.time_ns = held.time_ns;
    if (held.kind == ContextKind::kSoftirq) {
      item.vec = static_cast<uint32_t>(held.id);
      item.name = std::string(SoftirqVectorName(item.vec));
    } else {
      if (held.kind == ContextKind::kHardirq) {
        item.irq = held.irq;
      } else {
        item.pid = held.id;
      }
      item.name = std::string(strings.Get(held.name));
      if (held.kind == ContextKind::kTask) {
        item.prio = held.prio;
        item.task_class = held.task_class;
      }
    }
    items.push_back(std::move(item));
  }
  std::stable_sort(items.begin(), items.end(), [](const BlameItem& a, const BlameItem& b) {
    return a.time_ns > b.time_ns;
  });
  return items;
}

}  // namespace napiscope
