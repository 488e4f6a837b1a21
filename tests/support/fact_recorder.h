// Test helper: every fact the producers hand out, recorded from a hand-made trace.
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "napiscope/producers.h"
#include "support/event_builder.h"

namespace napiscope::testing {

/// Records every fact it receives.
struct FactRecorder : FactListener {
  std::vector<SoftirqRaiseFact> raises;
  std::vector<SoftirqWaitFact> waits;
  std::vector<std::pair<SoftirqRaiseFact, TimestampNs>> dropped_raises;
  std::vector<TaskSwitchFact> switches;
  std::vector<ThreadActivationFact> activations;
  std::vector<ThreadMigrationFact> migrations;
  std::vector<WakeWaitFact> queued;
  std::vector<WakeRunFact> ran;
  std::vector<std::pair<uint64_t, WakeDropReason>> wake_drops;
  std::vector<std::tuple<uint64_t, uint16_t, uint16_t>> moves;

  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override { raises.push_back(raise); }
  void OnSoftirqWait(const SoftirqWaitFact& wait) override { waits.push_back(wait); }
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) override {
    dropped_raises.emplace_back(raise, gap_ns);
  }
  void OnTaskSwitch(const TaskSwitchFact& change) override { switches.push_back(change); }
  void OnThreadActivation(const ThreadActivationFact& a) override { activations.push_back(a); }
  void OnThreadMigration(const ThreadMigrationFact& m) override { migrations.push_back(m); }
  void OnWakeQueued(const WakeWaitFact& wait) override { queued.push_back(wait); }
  void OnWakeMoved(uint64_t id, uint16_t from, uint16_t to, TimestampNs) override {
    moves.emplace_back(id, from, to);
  }
  void OnWakeRan(const WakeRunFact& run) override { ran.push_back(run); }
  void OnWakeDropped(uint64_t id, WakeDropReason reason, TimestampNs) override {
    wake_drops.emplace_back(id, reason);
  }
};

/// Plays `b` through a tracker and the producers, wired as producers.h says; without
/// `with_tracker` the producers get no tracker (softirq sites and IRQ sources unknown).
inline FactRecorder ProduceFacts(EventBuilder& b, bool with_tracker = true) {
  ContextTracker tracker;
  FactProducers facts(with_tracker ? &tracker : nullptr);
  FactRecorder recorder;
  tracker.AddListener(&facts);
  facts.AddListener(&recorder);
  FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&facts);
  b.Play(fanout);
  return recorder;
}

}  // namespace napiscope::testing
