// The time-plausibility rule every loader shares: timestamps no clock reaches, and jumps in
// time no recording has (a flipped bit in a page timestamp or TIME_EXTEND, a corrupt text
// line), are reported and never analysed as if time had passed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "napiscope/event_sink.h"

namespace napiscope::internal {

/// Timestamps past 2^62 ns (146 years of uptime) are corrupt: no clock reaches them.
constexpr uint64_t kMaxTimestampNs = uint64_t{1} << 62;

/// A step forward of more than a day between two consecutive events of a trace (all CPUs
/// merged) is implausible: some CPU records a tick or a switch far more often.
constexpr int64_t kImplausibleJumpNs = int64_t{24} * 3600 * 1'000'000'000;

/// Fewest and most nanoseconds one tick of a clock may be worth, as a power of two: 1/64 ns
/// (a 64 GHz counter) to 1024 ns (about 1 MHz). A TSC2NSEC option or a TIME_SHIFT scaling
/// outside it is corrupt: it would make a 100 us trace last days.
constexpr int kMinTickShift = -6;
constexpr int kMaxTickShift = 10;

/// True when `mult / 2^shift` (shift 0..63) lies within 2^kMinTickShift..2^kMaxTickShift: a
/// rate some clock has.
bool PlausibleClockScaling(uint64_t mult, int shift);

/// `mult / 2^shift` in words for an error ("4.29e+09"), three significant digits.
std::string ClockScalingText(uint64_t mult, int shift);

/// Sits between a loader and the sinks. Events with an impossible timestamp are dropped and
/// counted; at an implausible jump every CPU up to the highest seen gets a lost-events gap of
/// unknown size (a MissedEventsMark in the context and a kMissedEvents event), so no analysis pairs
/// events across it, and the jump is reported by Warnings().
class TimePlausibilityGuard : public EventSink {
 public:
  /// `context` receives the gap marks; `sink` gets every event that is kept.
  TimePlausibilityGuard(TraceContext& context, EventSink& sink) : context_(context), sink_(sink) {}
  void OnBegin(const TraceContext& context) override { sink_.OnBegin(context); }
  void OnEvent(const Event& event) override;
  void OnEnd() override { sink_.OnEnd(); }
  /// One line per kind of implausible time seen (none for a plausible trace).
  std::vector<std::string> Warnings() const;

 private:
  // Everything but a plausible event of a CPU seen before: kept out of OnEvent's path.
  [[gnu::noinline]] void OnUncommonEvent(const Event& event);

  TraceContext& context_;
  EventSink& sink_;
  TimestampNs last_ns_ = -1;
  std::vector<TimestampNs> cpu_last_ns_;  // -1: no event of the CPU yet
  int64_t impossible_ = 0;
  int64_t jumps_ = 0;
  int64_t largest_jump_ns_ = 0;
  TimestampNs largest_jump_at_ns_ = 0;
};

}  // namespace napiscope::internal
