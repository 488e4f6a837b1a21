// A guest's trace.dat with a TIME_SHIFT option (trace-cmd's guest/host clock samples per CPU)
// is read by napiscope's own reader, which synchronises every timestamp to the host itself:
// checked event by event against libtracecmd, against `trace-cmd report -t`, and against the
// correction worked out by hand for chosen events.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "napiscope/tracedat_writer.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"
#include "tracegen/scenario.h"

namespace napiscope {
namespace {

using ::napiscope::testing::HaveProgram;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::testing::HasSubstr;

constexpr TimestampNs T = 10'000'000'000;

// Guest raw timestamps of the events on each CPU: before the first sample, on one, between
// two, after the last.
const std::map<int, std::vector<TimestampNs>> kRawTimes = {
    {0, {T, T + 1'000, T + 500'000, T + 1'001'000, T + 2'000'000, T + 5'000'000}},
    {1, {T + 100, T + 2'000'000}},
    {2, {T + 10, T + 1'500'000, T + 9'000'000}},
    {3, {T + 20, T + 30}},  // no samples for CPU 3: not shifted
};

// Samples for CPUs 0..2 (CPU 3 has data but none): CPU 0 three samples with the offset
// rising then falling; CPU 1 two samples of the same time (the first is kept: one sample);
// CPU 2 three samples out of order, scaled by 3 >> fraction.
TraceDatTimeShift GuestClock(uint32_t flags, int64_t fraction, bool fractions) {
  TraceDatTimeShift shift;
  shift.host_trace_id = 0x1234'5678'9abc'def0ull;
  shift.flags = flags;
  shift.fractions = fractions;
  shift.cpus = {
      {{T + 1'000, 5'000'000, 1, 0},
       {T + 1'001'000, 5'100'000, 1, 0},
       {T + 3'001'000, 4'900'000, 1, 0}},
      {{T, -2'000'000, 1, 0}, {T, 7, 1, 0}},
      {{T + 2'000'000, 1'000, 3, fraction}, {T, 0, 3, fraction}, {T + 1'000'000, 500, 3, fraction}},
  };
  return shift;
}

std::string WriteGuestTrace(const std::string& dir, const std::string& name,
                            const TraceDatTimeShift& shift,
                            const std::vector<TraceDatOption>& more_options = {}) {
  tracegen::Scenario s(4);
  for (const auto& [cpu, times] : kRawTimes) {
    for (TimestampNs ts : times) s.SoftirqRaise(cpu, ts, kNetRx);
  }
  s.AddOption(kTraceDatOptionTimeShift, EncodeTimeShiftOption(shift));
  for (const TraceDatOption& option : more_options) s.AddOption(option.id, option.payload);
  std::string path = dir + "/" + name;
  absl::Status status = s.WriteTraceDat(path);
  EXPECT_TRUE(status.ok()) << status;
  return path;
}

struct Loaded {
  absl::Status status;
  TraceContext context;
  std::vector<Event> events;
};

Loaded Load(const std::string& path, bool through_libtracecmd) {
  Loaded loaded;
  tracegen::CollectingSink sink;
  LoadOptions options;
  options.libtracecmd_records = through_libtracecmd;
  loaded.status = LoadTrace(path, loaded.context, sink, options);
  loaded.events = std::move(sink.events);
  return loaded;
}

// The host times napiscope gives the events of `cpu`, in the CPU's order.
std::vector<TimestampNs> TimesOf(const std::vector<Event>& events, int cpu) {
  std::vector<TimestampNs> times;
  for (const Event& event : events) {
    if (event.cpu == cpu) times.push_back(event.ts_ns);
  }
  return times;
}

class TraceDatTimeShiftTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Loads `path` with napiscope's reader and with libtracecmd: every event the same, in the
  // same order, at the same time.
  Loaded LoadAndCompare(const std::string& path) {
    Loaded own = Load(path, false);
    Loaded reference = Load(path, true);
    EXPECT_TRUE(own.status.ok()) << own.status;
    EXPECT_TRUE(reference.status.ok()) << reference.status;
    size_t events = 0;
    for (const auto& [cpu, times] : kRawTimes) events += times.size();
    EXPECT_EQ(own.events.size(), events);
    EXPECT_EQ(reference.events.size(), events);
    for (size_t i = 0; i < own.events.size() && i < reference.events.size(); ++i) {
      EXPECT_EQ(own.events[i].ts_ns, reference.events[i].ts_ns) << "event " << i;
      EXPECT_EQ(own.events[i].cpu, reference.events[i].cpu) << "event " << i;
      EXPECT_EQ(own.events[i].kind, reference.events[i].kind) << "event " << i;
    }
    return own;
  }

  // `trace-cmd report -t` (the apt package's decoder) shows every event at napiscope's time.
  void ExpectTraceCmdReportAgrees(const std::string& path, const std::vector<Event>& events) {
    if (!HaveProgram("trace-cmd")) GTEST_SKIP() << "trace-cmd is not installed";
    testing::CommandResult report = RunCommand("trace-cmd report -t -i " + path);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    std::vector<std::pair<int, TimestampNs>> shown, ours;
    std::regex line(R"(\[(\d+)\]\s+(\d+)\.(\d{9}):)");
    for (std::sregex_iterator it(report.out.begin(), report.out.end(), line), end; it != end;
         ++it) {
      shown.emplace_back(std::stoi((*it)[1]),
                         std::stoll((*it)[2]) * 1'000'000'000 + std::stoll((*it)[3]));
    }
    for (const Event& event : events) ours.emplace_back(event.cpu, event.ts_ns);
    std::sort(shown.begin(), shown.end());
    std::sort(ours.begin(), ours.end());
    EXPECT_EQ(shown, ours) << report.out;
  }

  std::string dir_;
};

TEST_F(TraceDatTimeShiftTest, InterpolatedSamplesShiftEveryCpuLikeLibtracecmd) {
  std::string path =
      WriteGuestTrace(dir_, "interpolated.dat", GuestClock(kTraceDatTimeShiftInterpolate, 1, true));
  Loaded own = LoadAndCompare(path);
  ASSERT_TRUE(own.status.ok()) << own.status;
  // CPU 0, interpolated between (or extrapolated from) the two samples around each event:
  // offset = low + ((t - t_low) * (off_high - off_low) + delta / 2) / delta, truncated.
  EXPECT_THAT(TimesOf(own.events, 0),
              ::testing::ElementsAre(T + 4'999'901,                // before: -99.5 -> -99
                                     T + 1'000 + 5'000'000,        // on the first
                                     T + 500'000 + 5'049'900,      // 49'900.5 -> 49'900
                                     T + 1'001'000 + 5'100'000,    // on the second
                                     T + 2'000'000 + 5'000'101,    // -99'899.5 -> -99'899
                                     T + 5'000'000 + 4'700'101));  // -399'899.5 -> -399'899
  // CPU 1: its two samples share a time, the first is kept; one sample is a plain offset.
  EXPECT_THAT(TimesOf(own.events, 1),
              ::testing::ElementsAre(T + 100 - 2'000'000, T + 2'000'000 - 2'000'000));
  // CPU 2: scaled by 3 >> 1 = 1.5, offsets 0, 500, 1000 at T, T + 1 ms, T + 2 ms.
  EXPECT_THAT(TimesOf(own.events, 2),
              ::testing::ElementsAre((T + 10) * 3 / 2 + 0,  // 0.005 -> 0
                                     (T + 1'500'000) * 3 / 2 + 750,
                                     (T + 9'000'000) * 3 / 2 + 4'500));  // extrapolated
  // CPU 3 has no samples: its own clock, as libtracecmd leaves it, and said.
  EXPECT_THAT(TimesOf(own.events, 3), ::testing::ElementsAre(T + 20, T + 30));
  EXPECT_THAT(own.context.meta.warnings,
              ::testing::Contains(HasSubstr("no samples for 1 CPU with data (3)")));
  ExpectTraceCmdReportAgrees(path, own.events);
}

TEST_F(TraceDatTimeShiftTest, SamplesWithoutInterpolationTakeTheOffsetOfTheSampleBefore) {
  // Without the fraction arrays (trace-cmd before 3.0): every fraction is 0.
  std::string path = WriteGuestTrace(dir_, "stepwise.dat", GuestClock(0, 1, false));
  Loaded own = LoadAndCompare(path);
  ASSERT_TRUE(own.status.ok()) << own.status;
  // The offset of the sample at or before the event; before the first, the first's; after
  // the last, the one before the last (libtracecmd takes the last pair's first sample).
  EXPECT_THAT(TimesOf(own.events, 0),
              ::testing::ElementsAre(T + 5'000'000, T + 1'000 + 5'000'000, T + 500'000 + 5'000'000,
                                     T + 1'001'000 + 5'100'000, T + 2'000'000 + 5'100'000,
                                     T + 5'000'000 + 5'100'000));
  EXPECT_THAT(TimesOf(own.events, 1),
              ::testing::ElementsAre(T + 100 - 2'000'000, T + 2'000'000 - 2'000'000));
  // Scaled by 3 (no fraction written), offsets 0, 500, then 500 again after the last.
  EXPECT_THAT(
      TimesOf(own.events, 2),
      ::testing::ElementsAre((T + 10) * 3, (T + 1'500'000) * 3 + 500, (T + 9'000'000) * 3 + 500));
  ExpectTraceCmdReportAgrees(path, own.events);
}

std::string Le(uint64_t value, int bytes) {
  std::string out(bytes, '\0');
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>(value >> (8 * i));
  return out;
}

TEST_F(TraceDatTimeShiftTest, TheHostSyncComesBeforeTsc2NsecAndTheOffsetLikeLibtracecmd) {
  // A guest clock in TSC ticks at 3 GHz (TSC2NSEC mult / 2^shift = 1/3) and a 1 s OFFSET:
  // libtracecmd synchronises the raw ticks to the host first, then scales, then offsets.
  constexpr uint32_t kMult = 0x55555555u, kShift = 32;
  constexpr uint16_t kOptionOffset = 7, kOptionTsc2Nsec = 14;
  std::string path =
      WriteGuestTrace(dir_, "tsc.dat", GuestClock(kTraceDatTimeShiftInterpolate, 1, true),
                      {{kOptionTsc2Nsec, Le(kMult, 4) + Le(kShift, 4) + Le(0, 8)},
                       {kOptionOffset, std::string("1000000000\0", 11)}});
  Loaded own = LoadAndCompare(path);
  ASSERT_TRUE(own.status.ok()) << own.status;
  __extension__ typedef unsigned __int128 Uint128;
  auto scale_and_offset = [](TimestampNs host_ticks) {
    return static_cast<TimestampNs>((static_cast<Uint128>(host_ticks) * kMult) >> kShift) +
           1'000'000'000;
  };
  EXPECT_THAT(TimesOf(own.events, 1),
              ::testing::ElementsAre(scale_and_offset(T + 100 - 2'000'000),
                                     scale_and_offset(T + 2'000'000 - 2'000'000)));
  EXPECT_THAT(TimesOf(own.events, 3),
              ::testing::ElementsAre(scale_and_offset(T + 20), scale_and_offset(T + 30)));
  ExpectTraceCmdReportAgrees(path, own.events);
}

// A TIME_SHIFT option's payload (the interpolated clock of GuestClock) with one change.
Loaded LoadWithPayload(const std::string& dir, const std::string& payload) {
  tracegen::Scenario s(2);
  s.SoftirqRaise(0, T, kNetRx);
  s.SoftirqRaise(1, T + 1, kNetRx);
  s.AddOption(kTraceDatOptionTimeShift, payload);
  std::string path = dir + "/hostile.dat";
  EXPECT_TRUE(s.WriteTraceDat(path).ok());
  return Load(path, false);
}

TEST_F(TraceDatTimeShiftTest, CountsTheOptionCannotHoldAreErrorsNotAllocations) {
  const std::string head = Le(1, 8) + Le(kTraceDatTimeShiftInterpolate, 4);
  struct Case {
    std::string payload;
    std::string error;
  } cases[] = {
      {head + Le(0x80000000u, 4) + Le(0, 4), "it claims 2147483648 CPUs but has 4 bytes"},
      {head + Le(1, 4) + Le(0x80000000u, 4) + std::string(48, '\0'),
       "CPU 0 claims 2147483648 samples but only 48 bytes are left (truncated arrays)"},
      {head + Le(0xffffffffu, 4), "it claims 4294967295 CPUs but has 0 bytes"},
      {head + Le(1, 4), "it claims 1 CPUs but has 0 bytes"},
      {head + Le(2, 4) + Le(1, 4) + std::string(24, '\0'), "CPU 1's sample count is cut off"},
      {head.substr(0, 10), "its 10 bytes are shorter than its 16-byte header"},
  };
  for (const Case& c : cases) {
    Loaded loaded = LoadWithPayload(dir_, c.payload);
    EXPECT_FALSE(loaded.status.ok());
    EXPECT_THAT(std::string(loaded.status.message()), HasSubstr(c.error));
  }
}

TEST_F(TraceDatTimeShiftTest, TruncatedArraysAndImpossibleSamplesAreErrors) {
  TraceDatTimeShift shift;
  shift.flags = kTraceDatTimeShiftInterpolate;
  shift.cpus = {{{T, 100, 1, 0}, {T + 1'000, 200, 1, 0}}, {{T, 5, 1, 0}}};
  const std::string whole = EncodeTimeShiftOption(shift);
  ASSERT_TRUE(LoadWithPayload(dir_, whole).status.ok());
  struct Case {
    std::string payload;
    std::string error;
  } cases[] = {
      // The fractions (3 samples, 24 bytes) cut by 8: they need 24 bytes, 16 are left.
      {whole.substr(0, whole.size() - 8),
       "its fraction arrays need 24 bytes but 16 are left (truncated arrays)"},
      // CPU 1's arrays (and the fractions) cut: 1 sample claimed, 16 bytes left.
      {whole.substr(0, 16 + 4 + 48 + 4 + 16), "CPU 1 claims 1 samples but only 16 bytes"},
  };
  for (const Case& c : cases) {
    Loaded loaded = LoadWithPayload(dir_, c.payload);
    EXPECT_FALSE(loaded.status.ok());
    EXPECT_THAT(std::string(loaded.status.message()), HasSubstr(c.error));
  }
  TraceDatTimeShift bad = shift;
  bad.cpus[0][1].scaling = 0;
  EXPECT_THAT(std::string(LoadWithPayload(dir_, EncodeTimeShiftOption(bad)).status.message()),
              HasSubstr("corrupt TIME_SHIFT option: CPU 0 sample 1 has scaling 0 (at least 1)"));
  bad = shift;
  bad.cpus[1][0].fraction = 64;
  EXPECT_THAT(std::string(LoadWithPayload(dir_, EncodeTimeShiftOption(bad)).status.message()),
              HasSubstr("CPU 1 sample 0 has fraction 64 (0..63)"));
  // A guest clock 2^40 times the host's (or 2^-40): no two clocks differ that much.
  bad = shift;
  bad.cpus[0][1].scaling = int64_t{1} << 40;
  EXPECT_THAT(std::string(LoadWithPayload(dir_, EncodeTimeShiftOption(bad)).status.message()),
              HasSubstr("CPU 0 sample 1 scales the guest's clock by 1099511627776 >> 0 = 1.1e+12; "
                        "no two clocks differ that much"));
  bad = shift;
  bad.cpus[0][0].fraction = 40;
  EXPECT_THAT(std::string(LoadWithPayload(dir_, EncodeTimeShiftOption(bad)).status.message()),
              HasSubstr("CPU 0 sample 0 scales the guest's clock by 1 >> 40 = 9.09e-13"));
  bad = shift;
  bad.cpus[0][0].time = -1;
  EXPECT_THAT(std::string(LoadWithPayload(dir_, EncodeTimeShiftOption(bad)).status.message()),
              HasSubstr("CPU 0 sample 0 has a negative time -1"));
}

TEST_F(TraceDatTimeShiftTest, MoreCpusInTheOptionThanInTheTraceAreSaidAndUnused) {
  TraceDatTimeShift shift;
  shift.cpus.assign(40, {});
  shift.cpus[0] = {{0, 1'000, 1, 0}};
  shift.cpus[1] = {{0, 2'000, 1, 0}};
  Loaded loaded = LoadWithPayload(dir_, EncodeTimeShiftOption(shift));
  ASSERT_TRUE(loaded.status.ok()) << loaded.status;
  EXPECT_THAT(loaded.context.meta.warnings,
              ::testing::Contains(
                  HasSubstr("the TIME_SHIFT option has samples for 40 CPUs but the trace has 2")));
  EXPECT_THAT(TimesOf(loaded.events, 0), ::testing::ElementsAre(T + 1'000));
  EXPECT_THAT(TimesOf(loaded.events, 1), ::testing::ElementsAre(T + 1 + 2'000));
}

TEST_F(TraceDatTimeShiftTest, AShiftPastTheRangeOfTimeIsAnImpossibleTimestamp) {
  // Offsets that put every event before 0: counted as impossible, the load refuses them.
  TraceDatTimeShift shift;
  shift.cpus = {{{0, -2 * T, 1, 0}}, {{0, -2 * T, 1, 0}}};
  Loaded loaded = LoadWithPayload(dir_, EncodeTimeShiftOption(shift));
  EXPECT_FALSE(loaded.status.ok());
  EXPECT_THAT(std::string(loaded.status.message()), HasSubstr("impossible timestamps"));
}

}  // namespace
}  // namespace napiscope
