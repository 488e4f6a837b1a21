// An interrupt's identity and its words in every view: a device IRQ and the x86 vector of the
// same number are two interrupts, and their names say which (docs/definitions.md, "IRQ source").
#include <gtest/gtest.h>

#include <absl/container/flat_hash_set.h>

#include "napiscope/interrupt_id.h"

namespace napiscope {
namespace {

TEST(InterruptId, ADeviceIrqAndTheX86VectorOfItsNumberAreTwoInterrupts) {
  InterruptId nic{236, false}, timer{236, true};
  EXPECT_NE(nic, timer);
  EXPECT_LT(nic, timer);                        // a device IRQ before the vector of its number
  EXPECT_LT(timer, (InterruptId{237, false}));  // by number first
  absl::flat_hash_set<InterruptId> seen = {nic, timer, InterruptId{236, false}};
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_FALSE(InterruptId{}.known());
  EXPECT_TRUE(nic.known());
}

TEST(InterruptId, OfAnEventIsAVectorForIrqVectorsEventsOnly) {
  Event event;
  event.irq.irq = 236;
  for (EventKind kind : {EventKind::kIrqHandlerEntry, EventKind::kIrqHandlerExit}) {
    event.kind = kind;
    EXPECT_EQ(InterruptOf(event), (InterruptId{236, false}));
  }
  for (EventKind kind : {EventKind::kIrqVectorEntry, EventKind::kIrqVectorExit}) {
    event.kind = kind;
    EXPECT_EQ(InterruptOf(event), (InterruptId{236, true}));
  }
}

TEST(InterruptLabel, NamesAnX86VectorAsOneWhateverWordADeviceIrqGets) {
  EXPECT_EQ(InterruptLabel({41, false}), "IRQ 41");
  EXPECT_EQ(InterruptLabel({354, false}, "hard IRQ"), "hard IRQ 354");
  EXPECT_EQ(InterruptLabel({236, false}, ""), "236");
  EXPECT_EQ(InterruptLabel({251, true}), "x86 vector 251");
  EXPECT_EQ(InterruptLabel({236, true}, "hard IRQ"), "x86 vector 236");
  EXPECT_EQ(InterruptLabel({236, true}, ""), "x86 vector 236");
}

TEST(InterruptKindName, IsTheDeviceWordUnlessTheNumberIsAnX86Vectors) {
  EXPECT_EQ(InterruptKindName(false, "hard IRQ"), "hard IRQ");
  EXPECT_EQ(InterruptKindName(true, "hard IRQ"), "x86 vector");
}

}  // namespace
}  // namespace napiscope
