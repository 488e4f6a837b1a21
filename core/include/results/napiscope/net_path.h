// The network receive path's priorities: per NIC IRQ, the chain hard IRQ -> IRQ thread ->
// the thread that ran its NET_RX (or polled its NAPI), and the RT tasks beside them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/interrupt_id.h"

namespace napiscope {

/// One thread of a chain, with the priority it was seen at.
struct NetPathThread {
  int32_t pid = -1;      ///< -1: no thread (NET_RX ran at hard-IRQ exit)
  std::string comm;      ///< its name; "(hard-IRQ exit)" when pid is -1
  int16_t prio = -1;     ///< kernel priority last seen at a switch-in (-1 unknown)
  int rt_priority = 0;   ///< chrt priority (99 - prio) for RT, 0 for SCHED_OTHER
  std::string role;      ///< "irq_thread" or the site it ran NET_RX in / polled in
  int64_t runs = 0;      ///< IRQ thread: activations by this IRQ; runner: NET_RX runs or polls
  int64_t busy_ns = 0;   ///< runner: time it spent in the chain's NET_RX / NAPI work
  std::vector<int> cpus;  ///< CPUs it ran the chain's work on
};

/// An RT task (not part of any chain) that ran on a chain's CPUs.
struct NetPathRtTask {
  int32_t pid = 0;
  std::string comm;
  int16_t prio = 0;        ///< kernel priority (0-99)
  int rt_priority = 0;     ///< chrt priority
  std::string position;    ///< "above" the IRQ thread, "between" it and the runner, "below" both
  int64_t run_ns = 0;      ///< time it ran on the chain's CPUs
  int64_t held_while_waiting_ns = 0;  ///< ... of it while the chain's work was pending there
};

/// An RT task's time on one CPU while the chain's work waited there.
struct NetPathHolder {
  int32_t pid = 0;
  std::string comm;
  int rt_priority = 0;   ///< chrt priority
  int64_t held_ns = 0;   ///< summed over the waits on this CPU
};

/// The waits of a chain's work on one CPU that RT tasks held.
struct NetPathHeldCpu {
  int cpu = 0;
  int64_t waits = 0;              ///< waits on this CPU in which RT tasks held it
  int64_t held_ns = 0;            ///< their RT time, summed
  int64_t longest_ns = 0;         ///< the longest RT time in one wait
  TimestampNs longest_from_ns = 0;  ///< that wait, raise (or wakeup) to run
  TimestampNs longest_to_ns = 0;
  TimestampNs first_from_ns = 0;  ///< the first such wait began here ...
  TimestampNs last_to_ns = 0;     ///< ... and the last one ended here
  std::vector<int32_t> runners;   ///< the threads whose runs ended those waits (-1: IRQ exit)
  std::vector<NetPathHolder> holders;  ///< longest first
};

/// The chain of one NIC IRQ (or of an x86 vector that made network work).
struct NetPathRow {
  InterruptId irq;              ///< the device IRQ, or an x86 vector (e.g. RPS's IPI)
  std::string handler;          ///< irq_handler_entry name
  std::vector<int> irq_cpus;    ///< CPUs its hard IRQ fired on
  int64_t hardirqs = 0;         ///< hard IRQs seen
  NetPathThread irq_thread;     ///< pid -1 when the IRQ is not threaded
  std::vector<NetPathThread> runners;  ///< who ran its NET_RX / polled its NAPI, most runs first
  std::vector<NetPathRtTask> rt_tasks;  ///< highest priority first
  int64_t waits = 0;            ///< NET_RX raises (or NAPI-thread wakeups) paired with their run
  int64_t waited_ns = 0;        ///< their total raise/wakeup -> run time
  bool same_priority = false;   ///< the IRQ thread and a runner thread share a priority and a CPU
  bool starved = false;         ///< an RT task at or above a runner held its CPU while work waited
  std::vector<NetPathHeldCpu> held_by_cpu;  ///< per CPU, the waits RT tasks held, by CPU
  /// The wait RT tasks held longest, raise (or wakeup) to run; both 0 when none held one.
  int64_t worst_held_from_ns = 0;
  int64_t worst_held_to_ns = 0;  ///< (the findings' interval; not in the report's rows)
};

}  // namespace napiscope
