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

namespace napiscope::perfetto_export {

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
  // WakeLatencyWatches for the waking's task, remembered: it compares names, and every
  // sched_waking asks.
  bool Watched(const WakeWaitFact& wait);

  struct WatchedSlot {
    int32_t pid = -1;
    int16_t prio = -1;
    StringId comm = 0;
    bool watched = false;
    bool valid = false;
  };
  static constexpr size_t kWatchedSlots = 1024;

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
  std::array<WatchedSlot, kWatchedSlots> watched_{};
  Iids iids_;
  std::array<uint64_t, 256> wait_names_{};  // "NET_RX wait" per vector
  // Names of the activating instants ("hard IRQ 45 -> irq/45-eth0", "wakeup -> ksoftirqd/1")
  // by comm and IRQ.
  absl::flat_hash_map<uint64_t, uint64_t> activation_names_;
};

}  // namespace napiscope::perfetto_export
