// The words every view uses for an interrupt: a device IRQ and the x86 vector of the same
// number are two interrupts, and their names say which (docs/definitions.md, "IRQ source").
#include <gtest/gtest.h>

#include "napiscope/contexts.h"

namespace napiscope {
namespace {

TEST(InterruptLabel, NamesAnX86VectorAsOneWhateverWordADeviceIrqGets) {
  EXPECT_EQ(InterruptLabel(41, false), "IRQ 41");
  EXPECT_EQ(InterruptLabel(354, false, "hard IRQ"), "hard IRQ 354");
  EXPECT_EQ(InterruptLabel(236, false, ""), "236");
  EXPECT_EQ(InterruptLabel(251, true), "x86 vector 251");
  EXPECT_EQ(InterruptLabel(236, true, "hard IRQ"), "x86 vector 236");
  EXPECT_EQ(InterruptLabel(236, true, ""), "x86 vector 236");
}

TEST(InterruptKindName, IsTheDeviceWordUnlessTheNumberIsAnX86Vectors) {
  EXPECT_EQ(InterruptKindName(false, "hard IRQ"), "hard IRQ");
  EXPECT_EQ(InterruptKindName(true, "hard IRQ"), "x86 vector");
}

}  // namespace
}  // namespace napiscope
