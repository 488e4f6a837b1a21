// Files with options after which trace-cmd shifts or scales the timestamps (DATE, OFFSET as
// `trace-cmd record --date / --ts-offset` write them, TSC2NSEC) are read by napiscope's own
// reader, which applies them itself: checked here against the times libtracecmd gives.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <absl/numeric/int128.h>
#include <gtest/gtest.h>

#include "napiscope/loader.h"
#include "support/test_support.h"
#include "tracegen/event_describe.h"

namespace napiscope {
namespace {

constexpr uint16_t kOptionDate = 1;
constexpr uint16_t kOptionTraceClock = 4;
constexpr uint16_t kOptionOffset = 7;
constexpr uint16_t kOptionTsc2Nsec = 14;
using Uint128 = absl::uint128;  // as the loader: 32-bit targets have no __int128

// The trace with its UNAME option turned, in place, into the options `options` (id, payload):
// each takes its payload's size, the last one the rest of the UNAME option's room, padded with
// zeros; "" when they do not fit.
std::string WithOptions(const std::string& trace,
                        const std::vector<std::pair<uint16_t, std::string>>& options) {
  std::string changed = trace;
  size_t uname = changed.find("Linux tracegen");
  if (uname == std::string::npos || uname < 6) return "";
  size_t at = uname - 6;  // u16 id, u32 size, then the text
  if (changed[at] != 5 || changed[at + 1] != 0) return "";
  uint32_t room = 0;
  for (int i = 0; i < 4; ++i) {
    room |= uint32_t{static_cast<uint8_t>(changed[at + 2 + i])} << (8 * i);
  }
  room += 6;  // the option's header is room for the next option too
  std::string written;
  for (size_t i = 0; i < options.size(); ++i) {
    const auto& [id, payload] = options[i];
    size_t size = i + 1 == options.size() ? room - written.size() - 6 : payload.size();
    if (written.size() + 6 + payload.size() > room || size < payload.size()) return "";
    for (int byte = 0; byte < 2; ++byte) written.push_back(static_cast<char>(id >> (8 * byte)));
    for (int byte = 0; byte < 4; ++byte) {
      written.push_back(static_cast<char>(size >> (8 * byte)));
    }
    written += payload + std::string(size - payload.size(), '\0');
  }
  changed.replace(at, written.size(), written);
  return changed;
}

std::string WithOption(const std::string& trace, uint16_t id, const std::string& payload) {
  return WithOptions(trace, {{id, payload}});
}

std::string Le(uint64_t value, int bytes) {
  std::string out(bytes, '\0');
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>(value >> (8 * i));
  return out;
}

std::vector<Event> LoadEvents(const std::string& path, bool through_libtracecmd) {
  TraceContext context;
  tracegen::CollectingSink sink;
  LoadOptions options;
  options.libtracecmd_records = through_libtracecmd;
  absl::Status status = LoadTrace(path, context, sink, options);
  EXPECT_TRUE(status.ok()) << status;
  return std::move(sink.events);
}

class TraceDatTimeOptions : public ::testing::Test {
 protected:
  // Writes the original trace with option `id` = `payload`; the events as napiscope's reader
  // and as libtracecmd read it, and the original's events.
  void Load(uint16_t id, const std::string& payload) {
    const std::string original = testing::TestData("scenarios/irq_threads_bouncing.dat");
    std::string changed = WithOption(testing::ReadFile(original), id, payload);
    ASSERT_FALSE(changed.empty()) << "no UNAME option to turn into another";
    std::string path = testing::MakeTempDir() + "/options.dat";
    testing::WriteFile(path, changed);
    raw_ = LoadEvents(original, false);
    own_ = LoadEvents(path, false);
    reference_ = LoadEvents(path, true);
    ASSERT_FALSE(raw_.empty());
    ASSERT_EQ(own_.size(), raw_.size());
    ASSERT_EQ(reference_.size(), raw_.size());
  }

  // Every event's time is `convert` of the raw one, in the own reader and in libtracecmd.
  template <typename Convert>
  void ExpectTimes(Convert convert) {
    for (size_t i = 0; i < raw_.size(); ++i) {
      ASSERT_EQ(own_[i].ts_ns, convert(raw_[i].ts_ns)) << "event " << i;
      ASSERT_EQ(own_[i].ts_ns, reference_[i].ts_ns) << "event " << i << " (libtracecmd)";
      ASSERT_EQ(own_[i].kind, reference_[i].kind) << "event " << i;
    }
  }

  std::vector<Event> raw_, own_, reference_;
};

TEST_F(TraceDatTimeOptions, AnOffsetOptionShiftsEveryTimestampLikeLibtracecmd) {
  Load(kOptionOffset, "1000000000");
  ExpectTimes([](TimestampNs raw) { return raw + 1'000'000'000; });
}

TEST_F(TraceDatTimeOptions, ADateOptionIsMicrosecondsInHexLikeLibtracecmd) {
  Load(kOptionDate, "0x3e8");  // 1000 us
  ExpectTimes([](TimestampNs raw) { return raw + 1'000'000; });
}

TEST_F(TraceDatTimeOptions, ATsc2NsecOptionScalesLikeLibtracecmd) {
  // 3 GHz TSC: mult / 2^shift = 1/3 ns per tick.
  constexpr uint32_t kMult = 0x55555555u, kShift = 32;
  Load(kOptionTsc2Nsec, Le(kMult, 4) + Le(kShift, 4) + Le(0, 8));
  ExpectTimes([](TimestampNs raw) {
    return static_cast<TimestampNs>((static_cast<Uint128>(raw) * kMult) >> kShift);
  });
}

TEST_F(TraceDatTimeOptions, AnOffsetPastTheRangeOfTimeIsAnError) {
  const std::string original = testing::TestData("scenarios/irq_threads_bouncing.dat");
  std::string path = testing::MakeTempDir() + "/offset.dat";
  testing::WriteFile(path, WithOption(testing::ReadFile(original), kOptionDate,
                                      "0x7fffffffffffffff"));
  TraceContext context;
  tracegen::CollectingSink sink;
  absl::Status status = LoadTrace(path, context, sink, LoadOptions{});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("DATE option '0x7fffffffffffffff' is out of range"),
            std::string::npos)
      << status;
}

// A TSC2NSEC scaling no clock has (2^32 - 1 ns a tick made a 109 us trace last 5.3 days,
// exit 0) is refused, naming the option; a 1 MHz and a 64 GHz counter are read.
TEST(TraceDatTsc2Nsec, AScalingNoClockHasIsRefused) {
  const std::string original =
      testing::ReadFile(testing::TestData("scenarios/irq_threads_bouncing.dat"));
  const std::string dir = testing::MakeTempDir();
  struct Case {
    uint32_t mult, shift;
    std::string error;  // "" when it loads
  } cases[] = {
      {0xffffffffu, 0, "TSC2NSEC option (mult 4294967295, shift 0) makes one clock tick 4.29e+09 ns"},
      {1, 40, "TSC2NSEC option (mult 1, shift 40) makes one clock tick 9.09e-13 ns"},
      {1025, 0, "makes one clock tick 1.02e+03 ns; no clock ticks at that rate"},
      {1000, 0, ""},     // a 1 MHz counter
      {1, 6, ""},        // 64 GHz
      {0x55555555u, 32, ""},  // 3 GHz
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mult);
    std::string path = dir + "/tsc.dat";
    testing::WriteFile(path, WithOption(original, kOptionTsc2Nsec,
                                        Le(c.mult, 4) + Le(c.shift, 4) + Le(0, 8)));
    TraceContext context;
    tracegen::CollectingSink sink;
    absl::Status status = LoadTrace(path, context, sink, LoadOptions{});
    if (c.error.empty()) {
      EXPECT_TRUE(status.ok()) << status;
    } else {
      EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
      EXPECT_NE(std::string(status.message()).find(c.error), std::string::npos) << status;
    }
  }
}

// Loads the bundled scenario with its UNAME option turned into `options`; the trace's clock
// in `clock`.
absl::Status LoadWithOptions(const std::vector<std::pair<uint16_t, std::string>>& options,
                             std::vector<Event>* events, std::string* clock) {
  const std::string original = testing::TestData("scenarios/irq_threads_bouncing.dat");
  std::string changed = WithOptions(testing::ReadFile(original), options);
  if (changed.empty()) return absl::InternalError("the options do not fit");
  std::string path = testing::MakeTempDir() + "/clock.dat";
  testing::WriteFile(path, changed);
  TraceContext context;
  tracegen::CollectingSink sink;
  absl::Status status = LoadTrace(path, context, sink, LoadOptions{});
  *events = std::move(sink.events);
  *clock = context.meta.clock;
  return status;
}

TEST(TraceDatClock, AClockThatDoesNotCountTimeIsRefusedUnlessTsc2NsecConvertsIt) {
  std::vector<Event> events;
  std::string clock;
  for (std::string name : {"x86-tsc", "counter", "uptime"}) {
    absl::Status status = LoadWithOptions(
        {{kOptionTraceClock, "local global [" + name + "] mono\n"}}, &events, &clock);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_NE(std::string(status.message())
                  .find("recorded with trace_clock " + name +
                        ", which counts cycles or events, not time"),
              std::string::npos)
        << status;
  }
  // trace-cmd record -C x86-tsc --tsc2nsec: read, in nanoseconds.
  constexpr uint32_t kMult = 0x55555555u, kShift = 32;
  ASSERT_TRUE(LoadWithOptions({{kOptionTraceClock, std::string("[x86-tsc]\n", 11)},
                               {kOptionTsc2Nsec, Le(kMult, 4) + Le(kShift, 4) + Le(0, 8)}},
                              &events, &clock)
                  .ok());
  EXPECT_EQ(clock, "x86-tsc");
  std::vector<Event> raw =
      LoadEvents(testing::TestData("scenarios/irq_threads_bouncing.dat"), false);
  ASSERT_EQ(events.size(), raw.size());
  ASSERT_FALSE(raw.empty());
  EXPECT_EQ(events.back().ts_ns,
            static_cast<TimestampNs>((static_cast<Uint128>(raw.back().ts_ns) * kMult) >> kShift));
  // A clock in nanoseconds is read as it is.
  ASSERT_TRUE(LoadWithOptions({{kOptionTraceClock, "local [mono] global"}}, &events, &clock).ok());
  EXPECT_EQ(clock, "mono");
  ASSERT_EQ(events.size(), raw.size());
  EXPECT_EQ(events.back().ts_ns, raw.back().ts_ns);
}

}  // namespace
}  // namespace napiscope
