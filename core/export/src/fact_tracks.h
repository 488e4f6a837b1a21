// What the fact producers pair, as tracks: softirq raise -> entry waits per CPU and vector with
// a NET_RX-pending counter per CPU, service-thread activations with a flow from the hard IRQ or
// wakeup that caused them, and the wake -> run waits of the threads the wake-latency analysis
// measures (RT tasks and softirq servers).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "context_tracks.h"
#include "napiscope/facts.h"
#include "napiscope/task_class.h"

namespace napiscope::perfetto_export {

/// WakeLatencyWatches for the task a sched_waking wakes, remembered by pid, comm and priority:
/// it compares names, and every sched_waking asks.
class WakeWatches {
 public:
  /// True when the wake-latency analysis watches the task `wait` wakes; `comm` is the text of
  /// `wait.waking_comm`, asked for only when not remembered.
  template <typename CommText>
  bool Watched(const WakeWaitFact& wait, CommText&& comm) {
    uint64_t key =
        (static_cast<uint64_t>(static_cast<uint32_t>(wait.pid)) << 32) ^ wait.waking_comm;
    Slot& slot = slots_[(key * 0x9e3779b97f4a7c15) >> (64 - kSlotBits)];
    if (!slot.valid || slot.pid != wait.pid || slot.prio != wait.waking_prio ||
        slot.comm != wait.waking_comm) {
      slot = {wait.pid, wait.waking_prio, wait.waking_comm,
              WakeLatencyWatches(wait.pid, comm(wait.waking_comm), wait.waking_prio), true};
    }
    return slot.watched;
  }

 private:
  struct Slot {
    int32_t pid = -1;
    int16_t prio = -1;
    StringId comm = 0;
    bool watched = false;
    bool valid = false;
  };
  static constexpr int kSlotBits = 10;
  std::array<Slot, size_t{1} << kSlotBits> slots_{};
};

/// Writes the producers' facts as they stream; holds only the waits still open.
class FactTracks : public FactListener {
 public:
  FactTracks(TrackLayout* layout, const AnalysisOptions& options);

  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override;
  void OnSoftirqWait(const SoftirqWaitFact& wait) override;
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) override;
  void OnThreadActivation(const ThreadActivationFact& activation) override;
  void OnWakeQueued(const WakeWaitFact& wait) override;
  void OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                   TimestampNs ts_ns) override;
  void OnWakeRan(const WakeRunFact& run) override;
  void OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) override;

 private:
  struct OpenWait {
    TimestampNs waking_ns = 0;
    uint16_t waker_cpu = 0;
    int32_t moves = 0;
  };

  void NetRxPending(uint16_t cpu, TimestampNs ts_ns, int64_t value);

  // The interned strings of the slices and instants.
  struct Iids {
    uint64_t softirq_wait, wakeup, activation, wake;                 // categories
    uint64_t cross_cpu_activation, same_cpu_activation, wake_to_run;  // event names
    uint64_t vec, delay_ns, ran_in, pending_mask, pid, comm, irq, from_cpu, to_cpu, cross_cpu,
        exact, wait_ns, prio, waker_cpu, run_cpu, moves;              // arg names
  };

  TrackLayout* layout_;
  const AnalysisOptions& options_;
  absl::flat_hash_map<uint64_t, OpenWait> waits_;  // watched wake waits not yet ended
  WakeWatches watches_;
  Iids iids_;
  std::array<uint64_t, 256> wait_names_{};  // "NET_RX wait" per vector
  // Names of the activating instants ("hard IRQ 45 -> irq/45-eth0", "wakeup -> ksoftirqd/1")
  // by comm and IRQ.
  absl::flat_hash_map<uint64_t, uint64_t> activation_names_;
};

}  // namespace napiscope::perfetto_export
