// Issue 66: the Events toolbar's fields shrank when the status text grew, so the next click
// landed on another button than the one aimed at. The status takes only the room left.
#include <QApplication>
#include <QLabel>
#include <QPushButton>

#include <gtest/gtest.h>

#include "event_list.h"
#include "gui_test_support.h"

namespace napiscope::gui {
namespace {

using testing::LoadTestTrace;

QRect ButtonGeometry(const EventListPanel& panel, const QString& text) {
  for (const QPushButton* button : panel.findChildren<QPushButton*>()) {
    if (button->text() == text) return button->geometry();
  }
  return {};
}

TEST(EventListToolbar, ALongerStatusDoesNotMoveTheFieldsOrButtons) {
  auto trace = LoadTestTrace("real/veth-threaded-napi.dat");
  ASSERT_NE(trace, nullptr);
  EventListPanel panel;
  panel.resize(800, 300);
  panel.show();
  panel.SetTrace(trace);
  ASSERT_TRUE(panel.SetFilterText(""));
  QApplication::processEvents();
  QRect next = ButtonGeometry(panel, "▶");
  ASSERT_FALSE(next.isEmpty());
  // Longer statuses: a filter's count, then a search without a match.
  ASSERT_TRUE(panel.SetFilterText("event==sched_switch"));
  QApplication::processEvents();
  EXPECT_EQ(ButtonGeometry(panel, "▶"), next);
  EXPECT_FALSE(panel.Find("no-such-text-in-this-trace", true));
  QApplication::processEvents();
  EXPECT_EQ(ButtonGeometry(panel, "▶"), next);
  EXPECT_LT(ButtonGeometry(panel, "◀").right(), next.left());
}

}  // namespace
}  // namespace napiscope::gui
