// The events `record -e/--events` resolves to: presets, system:event entries, both mixed, each
// event once.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/record.h"

namespace napiscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(EventPresets, APresetIsItsEvents) {
  auto minimal = ResolveEventPreset("minimal");
  ASSERT_TRUE(minimal.ok());
  EXPECT_EQ(minimal->size(), 10u);
  EXPECT_EQ(minimal->front(), "sched:sched_switch");
  EXPECT_EQ(minimal->back(), "napi:napi_poll");
}

TEST(EventPresets, AListKeepsItsOrder) {
  auto events = ResolveEventPreset(" sched:sched_switch, irq:* ");
  ASSERT_TRUE(events.ok());
  EXPECT_THAT(*events, ElementsAre("sched:sched_switch", "irq:*"));
}

// `-e minimal -e sched:sched_stat_runtime` (joined by commas): the preset plus an event, and
// an event the preset already has is not enabled twice.
TEST(EventPresets, PresetsAndEventsMixOnceEach) {
  auto events = ResolveEventPreset("minimal,sched:sched_stat_runtime,sched:sched_switch,minimal");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 11u);
  EXPECT_EQ(events->front(), "sched:sched_switch");
  EXPECT_EQ(events->back(), "sched:sched_stat_runtime");
}

// As trace-cmd's -e: a system or an event without its system is kept for the recorder to find.
TEST(EventPresets, ASystemOrABareEventIsKept) {
  auto events = ResolveEventPreset("minimal,sched_stat_runtime,irq_vectors");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 12u);
  EXPECT_EQ((*events)[10], "sched_stat_runtime");
  EXPECT_EQ((*events)[11], "irq_vectors");
}

TEST(EventPresets, AMalformedEntryIsAnErrorNamingIt) {
  for (const char* entry : {"sched:", ":sched_switch", "a:b:c", "events/sched"}) {
    auto events = ResolveEventPreset(std::string("minimal,") + entry);
    ASSERT_FALSE(events.ok()) << entry;
    EXPECT_EQ(events.status().message(),
              std::string("--events: '") + entry +
                  "' is neither a preset (napiscope, minimal), system:event, a system nor an "
                  "event");
  }
}

TEST(EventPresets, NothingGivenIsAnError) {
  auto events = ResolveEventPreset(" , ");
  ASSERT_FALSE(events.ok());
  EXPECT_THAT(std::string(events.status().message()), HasSubstr("no event given"));
}

}  // namespace
}  // namespace napiscope
