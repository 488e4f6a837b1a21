// What held a CPU while something waited on it: the tasks, hard IRQs and softirq vectors that
// ran there during a wait, with their time, accumulated from the context tracker's segments.
// The softirq and wake-latency analyses and the Python module's wait tables share it.
#pragma once

#include <cstdint>
#include <vector>

#include "napiscope/blame.h"
#include "napiscope/contexts.h"
#include "napiscope/interrupt_id.h"
#include "napiscope/string_table.h"

namespace napiscope {

/// Holders of a CPU during one wait and how long each held it.
class WaitBlame {
 public:
  /// Charges [from_ns, to_ns) to `frame`'s holder, or to unknown when `frame` is nullptr.
  /// Nothing happens when to_ns <= from_ns.
  void Charge(TimestampNs from_ns, TimestampNs to_ns, const ContextFrame* frame);

  /// Adds to unknown what keeps the charged total below `total_ns` (time no segment covered).
  void ChargeUnknownUpTo(int64_t total_ns);

  /// Forgets every charge, keeping the memory for the next wait.
  void Clear() {
    held_.clear();
    unknown_ns_ = 0;
  }

  /// Time nothing is known about (lost events, missing context switches).
  int64_t unknown_ns() const { return unknown_ns_; }

  /// The holders with names resolved, longest first (ties in first-seen order).
  std::vector<BlameItem> Items(const StringTable& strings) const;

 private:
  struct Held {
    ContextKind kind;
    int32_t id;            // tasks: pid; softirqs: vec
    InterruptId irq;       // hard IRQs
    StringId name;         // comm or handler
    int16_t prio;          // tasks: the lowest kernel priority seen (the most urgent)
    TaskClass task_class;  // tasks: the latest class the tracker gave it
    int64_t time_ns;
  };
  std::vector<Held> held_;
  int64_t unknown_ns_ = 0;
};

}  // namespace napiscope
