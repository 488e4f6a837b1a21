#include "load/time_plausibility.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

namespace napiscope::internal {
namespace {

// "18.0 years", "2.5 days": a jump's size in the unit a reader grasps.
std::string JumpSize(int64_t ns) {
  constexpr double kDayNs = 86400e9;
  double days = static_cast<double>(ns) / kDayNs;
  if (days >= 365.25) return absl::StrFormat("%.1f years", days / 365.25);
  return absl::StrFormat("%.1f days", days);
}

}  // namespace

bool PlausibleClockScaling(uint64_t mult, int shift) {
  __extension__ typedef unsigned __int128 Uint128;
  if (shift < 0 || shift > 63) return false;
  const Uint128 one = Uint128{1} << shift;  // a scaling of 1
  return (Uint128{mult} << -kMinTickShift) >= one && Uint128{mult} <= (one << kMaxTickShift);
}

std::string ClockScalingText(uint64_t mult, int shift) {
  return absl::StrFormat("%.3g", static_cast<double>(mult) / static_cast<double>(uint64_t{1} << shift));
}

void TimePlausibilityGuard::OnEvent(const Event& event) {
  if (event.kind != EventKind::kMissedEvents && event.ts_ns >= 0 &&
      static_cast<uint64_t>(event.ts_ns) <= kMaxTimestampNs &&
      (last_ns_ < 0 || event.ts_ns - last_ns_ <= kImplausibleJumpNs) &&
      event.cpu < cpu_last_ns_.size()) [[likely]] {
    last_ns_ = event.ts_ns;
    cpu_last_ns_[event.cpu] = event.ts_ns;
    sink_.OnEvent(event);
    return;
  }
  OnUncommonEvent(event);
}

void TimePlausibilityGuard::OnUncommonEvent(const Event& event) {
  if (event.ts_ns < 0 || static_cast<uint64_t>(event.ts_ns) > kMaxTimestampNs) {
    ++impossible_;
    return;
  }
  if (event.kind == EventKind::kMissedEvents) {
    sink_.OnEvent(event);
    return;
  }
  if (last_ns_ >= 0 && event.ts_ns - last_ns_ > kImplausibleJumpNs) {
    ++jumps_;
    if (event.ts_ns - last_ns_ > largest_jump_ns_) {
      largest_jump_ns_ = event.ts_ns - last_ns_;
      largest_jump_at_ns_ = last_ns_;
    }
    // Every CPU seen so far and the one after the jump: a CPU without an earlier event has
    // its gap start where the jump starts.
    if (event.cpu >= cpu_last_ns_.size()) cpu_last_ns_.resize(event.cpu + 1u, -1);
    for (size_t cpu = 0; cpu < cpu_last_ns_.size(); ++cpu) {
      TimestampNs before_ns = cpu_last_ns_[cpu] >= 0 ? cpu_last_ns_[cpu] : last_ns_;
      MissedEventsMark mark{static_cast<uint16_t>(cpu), event.ts_ns, before_ns, -1};
      context_.missed.push_back(mark);
      Event gap;
      gap.ts_ns = event.ts_ns;
      gap.cpu = static_cast<uint16_t>(cpu);
      gap.kind = EventKind::kMissedEvents;
      gap.pid = -1;
      gap.missed = {mark.count};
      sink_.OnEvent(gap);
    }
  }
  last_ns_ = event.ts_ns;
  if (event.cpu >= cpu_last_ns_.size()) cpu_last_ns_.resize(event.cpu + 1u, -1);
  cpu_last_ns_[event.cpu] = event.ts_ns;
  sink_.OnEvent(event);
}

std::vector<std::string> TimePlausibilityGuard::Warnings() const {
  std::vector<std::string> warnings;
  if (impossible_ > 0) {
    warnings.push_back(
        absl::StrCat(impossible_, " events with impossible timestamps (over 146 years) skipped"));
  }
  if (jumps_ > 0) {
    warnings.push_back(absl::StrCat(
        "time jumps forward implausibly (", jumps_, jumps_ == 1 ? " jump" : " jumps",
        ", the largest ", JumpSize(largest_jump_ns_), " after ",
        absl::StrFormat("%.6f", static_cast<double>(largest_jump_at_ns_) / 1e9),
        " s): a corrupt timestamp; the time in between is treated as lost on every CPU"));
  }
  return warnings;
}

}  // namespace napiscope::internal
