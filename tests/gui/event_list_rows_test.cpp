// Issue 66: the status bar said 422794 events and the event list 422796: the list's
// [LOST EVENTS] rows, one per gap, which the status bar does not count. The list says so.
#include <QLabel>

#include <gtest/gtest.h>

#include "event_list.h"
#include "gui_test_support.h"

namespace napiscope::gui {
namespace {

using testing::LoadTestTrace;

QStringList Labels(const QWidget& widget) {
  QStringList texts;
  for (const QLabel* label : widget.findChildren<QLabel*>()) texts << label->text();
  return texts;
}

TEST(EventListRows, TheCountSaysWhichRowsAreLostEventsMarks) {
  auto trace = LoadTestTrace("real/veth-threaded-napi.dat");  // 2 gaps, one per CPU
  ASSERT_NE(trace, nullptr);
  ASSERT_EQ(trace->timeline.events(), 422794);  // what the status bar counts
  EventListPanel panel;
  panel.SetTrace(trace);
  EXPECT_TRUE(Labels(panel).contains("422796 rows: 422794 events and 2 [LOST EVENTS] rows"))
      << Labels(panel).join(" | ").toStdString();
  ASSERT_TRUE(panel.SetFilterText("sched_switch"));
  QString filtered;
  for (const QString& text : Labels(panel)) {
    if (text.contains(" of 422796 rows: ")) filtered = text;
  }
  EXPECT_FALSE(filtered.isEmpty()) << Labels(panel).join(" | ").toStdString();
}

}  // namespace
}  // namespace napiscope::gui
