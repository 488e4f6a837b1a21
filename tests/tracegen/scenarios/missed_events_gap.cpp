// Lost events: a raise before a ring-buffer overflow and its entry after it cannot be paired
// (the events in between are unknown), while a pair after the gap is an ordinary one.
#include "tracegen/scenarios/builtin.h"

namespace napiscope::tracegen {

std::unique_ptr<Scenario> BuildMissedEventsGap(nlohmann::json* facts) {
  constexpr TimestampNs T = 5'000'000'000;
  constexpr int32_t kIperf = 1500, kSleeper = 1700;
  constexpr TimestampNs kRaiseBeforeGap = T + 1'500, kGap = T + 50'000;
  constexpr TimestampNs kEntryAfterGap = T + 70'000;
  constexpr TimestampNs kRaise = T + 100'500, kEntry = T + 102'500;
  constexpr int64_t kLost = 3000;

  auto s = std::make_unique<Scenario>(2);
  s->Task(kIperf, "iperf3").Task(kSleeper, "sleep").Running(0, kIperf).Running(1, kSleeper);
  s->IrqEntry(0, T + 1'000, 30, "eth0");
  s->SoftirqRaise(0, kRaiseBeforeGap, kNetRx);
  s->IrqExit(0, T + 2'000, 30);
  s->Missed(0, kGap, kLost);
  s->NetDevXmit(0, T + 60'000, "eth0", 1514);
  s->SoftirqEntry(0, kEntryAfterGap, kNetRx);
  s->SoftirqExit(0, T + 75'000, kNetRx);
  s->IrqEntry(0, T + 100'000, 30, "eth0");
  s->SoftirqRaise(0, kRaise, kNetRx);
  s->IrqExit(0, T + 101'000, 30);
  s->SoftirqEntry(0, kEntry, kNetRx);
  s->SoftirqExit(0, T + 110'000, kNetRx);
  // CPU1 loses an unknown number of events (the page header says so without a count).
  s->NetDevXmit(1, T + 10'000, "eth0", 66);
  s->Missed(1, T + 20'000);
  s->Switch(1, T + 30'000, kSleeper, "S", 0);

  (*facts)["missed_gaps"] = {
      {{"cpu", 0}, {"first_after_ns", T + 60'000}, {"last_before_ns", T + 2'000}, {"count", kLost}},
      {{"cpu", 1}, {"first_after_ns", T + 30'000}, {"last_before_ns", T + 10'000}, {"count", -1}}};
  (*facts)["softirq_raises"] = {{{"cpu", 0},
                                 {"vec", kNetRx},
                                 {"raise_ns", kRaiseBeforeGap},
                                 {"entry_ns", kEntryAfterGap},
                                 {"delay_ns", nullptr},
                                 {"across_gap", true}},
                                {{"cpu", 0},
                                 {"vec", kNetRx},
                                 {"raise_ns", kRaise},
                                 {"entry_ns", kEntry},
                                 {"delay_ns", kEntry - kRaise},
                                 {"context", "hardirq_exit"},
                                 {"pid", kIperf}}};
  (*facts)["softirq_latency"] = {{{"cpu", 0},
                                  {"vec", kNetRx},
                                  {"count", 1},
                                  {"max_ns", kEntry - kRaise},
                                  {"unknown_across_gap", 1}}};
  return s;
}

}  // namespace napiscope::tracegen
