// GUI tests with real input on a real X server: run by ctest under Xvfb (xvfb-run) with
// QT_QPA_PLATFORM=xcb; keys, wheel, clicks and drags on the timeline come from xdotool through
// the X server, list and finding selection from QTest on the xcb platform. Skipped elsewhere.
#include <QApplication>
#include <QGuiApplication>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include "event_list.h"
#include "findings_panel.h"
#include "main_window.h"
#include "support/test_support.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

using napiscope::testing::RunCommand;

class RealInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (QGuiApplication::platformName() != "xcb") {
      GTEST_SKIP() << "needs an X server (ctest runs this under xvfb-run with QT_QPA_PLATFORM=xcb)";
    }
    if (RunCommand("xdotool version").exit_code != 0) GTEST_SKIP() << "xdotool is not installed";
    window_.SetShowErrorDialogs(false);
    window_.move(0, 0);
    window_.resize(1400, 900);
    window_.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window_));
    window_.activateWindow();
    // Without a window manager, xdotool gives the window the input focus.
    Xdo(absl::StrCat("windowfocus --sync ", window_.winId()));
    QTest::qWait(100);
  }

  // Runs xdotool and lets Qt handle what it caused.
  void Xdo(const std::string& arguments) {
    napiscope::testing::CommandResult result = RunCommand("xdotool " + arguments);
    EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.err;
    for (int i = 0; i < 10; ++i) QTest::qWait(20);
  }

  // Global screen coordinates of a point of the timeline.
  std::string At(QPoint local) {
    QPoint global = window_.timeline()->mapToGlobal(local);
    return absl::StrCat(global.x(), " ", global.y());
  }

  MainWindow window_;
};

TEST_F(RealInput, KeysWheelClicksAndDragsOnTheTimeline) {
  ASSERT_TRUE(window_.OpenTraceAndWait(QString::fromStdString(
      napiscope::testing::TestData("real/veth-threaded-napi.dat"))));
  QTest::qWait(100);
  const TimelineViewState& state = window_.timeline()->state();
  TimestampNs span = state.to_ns - state.from_ns;
  // W zooms in at once: the timeline has the focus after opening, no click needed.
  Xdo("key w");
  EXPECT_LT(state.to_ns - state.from_ns, span);
  TimestampNs zoomed = state.to_ns - state.from_ns;
  // The wheel zooms in further at the cursor.
  TimelineLayout layout = window_.timeline()->Layout();
  QPoint inside(layout.time_left() + 400, layout.rows().front().center());
  Xdo("mousemove " + At(inside) + " click 4");
  EXPECT_LT(state.to_ns - state.from_ns, zoomed);
  // A click sets marker A where it is.
  Xdo("mousemove " + At(inside) + " click 1");
  ASSERT_TRUE(state.marker_a.has_value());
  EXPECT_NEAR(static_cast<double>(*state.marker_a),
              static_cast<double>(AxisOf(state, window_.timeline()->Layout()).TimeAt(inside.x())),
              AxisOf(state, window_.timeline()->Layout()).NsPerPixel() * 2);
  // A drag pans.
  TimestampNs from = state.from_ns;
  QPoint right(inside.x() + 200, inside.y());
  Xdo("mousemove " + At(right) + " mousedown 1 mousemove " + At(QPoint(right.x() - 100, right.y())) +
      " mousemove " + At(inside) + " mouseup 1");
  EXPECT_GT(state.from_ns, from);
  // A right-drag zooms to the range drawn.
  span = state.to_ns - state.from_ns;
  Xdo("mousemove " + At(inside) + " mousedown 3 mousemove " + At(QPoint(inside.x() + 50, inside.y())) +
      " mousemove " + At(QPoint(inside.x() + 100, inside.y())) + " mouseup 3");
  EXPECT_LT(state.to_ns - state.from_ns, span / 2);
  // Home shows everything again.
  Xdo("key Home");
  EXPECT_EQ(state.from_ns, window_.trace()->timeline.start_ns());
}

TEST_F(RealInput, AFindingOnACpuOffScreenIsScrolledIntoView) {
  // rt_wake_latency: an rt-wake-latency finding on CPU 1.
  ASSERT_TRUE(window_.OpenTraceAndWait(QString::fromStdString(
      napiscope::testing::TestData("scenarios/rt_wake_latency.dat"))));
  // Three pinned lanes and a short window leave CPU 1 below the timeline.
  for (int32_t pid : {1600, 1700, 1800}) window_.timeline()->Pin(pid);
  for (QSplitter* splitter : window_.findChildren<QSplitter*>()) {
    if (splitter->orientation() == Qt::Vertical && splitter->indexOf(window_.timeline()) == 0) {
      splitter->setSizes({200, splitter->height() - 200});
    }
  }
  QTest::qWait(100);
  TimelineLayout layout = window_.timeline()->Layout();
  ASSERT_TRUE(layout.CpuSpan(1));
  ASSERT_GT(layout.CpuSpan(1)->second, layout.height());
  auto* tree = window_.findings()->findChild<QTreeWidget*>();
  ASSERT_NE(tree, nullptr);
  QTreeWidgetItem* target = nullptr;
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    if (tree->topLevelItem(i)->text(1) == "1") target = tree->topLevelItem(i);
  }
  ASSERT_NE(target, nullptr) << "a finding on CPU 1";
  tree->scrollToItem(target);
  QRect rect = tree->visualItemRect(target);
  QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
  QTest::qWait(50);
  layout = window_.timeline()->Layout();
  EXPECT_GE(layout.CpuSpan(1)->first, layout.rows_top());
  EXPECT_LE(layout.CpuSpan(1)->second, layout.height());
}

TEST_F(RealInput, SearchTheEventListJumpAndPin) {
  ASSERT_TRUE(window_.OpenTraceAndWait(QString::fromStdString(
      napiscope::testing::TestData("scenarios/irq_threads_bouncing.dat"))));
  EventListPanel* list = window_.events();
  auto* tabs = list->parentWidget();
  while (tabs != nullptr && qobject_cast<QTabWidget*>(tabs) == nullptr) tabs = tabs->parentWidget();
  ASSERT_NE(tabs, nullptr);
  qobject_cast<QTabWidget*>(tabs)->setCurrentWidget(list);
  QTest::qWait(50);
  // Type a condition in the search box and press Enter: the first match is selected and
  // marker A moves to it.
  QTest::mouseClick(list->search_box(), Qt::LeftButton);
  QTest::keyClicks(list->search_box(), "irq==355");
  QTest::keyClick(list->search_box(), Qt::Key_Return);
  std::optional<Event> event = list->SelectedEvent();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, EventKind::kIrqHandlerEntry);
  EXPECT_EQ(event->irq.irq, 355);
  ASSERT_TRUE(window_.timeline()->state().marker_a);
  EXPECT_EQ(*window_.timeline()->state().marker_a, event->ts_ns);
  // Pin irq/355's thread from the list (its signal, as the row's menu sends it).
  emit list->PinRequested(182);
  EXPECT_EQ(window_.timeline()->PinnedPids(), std::vector<int32_t>{182});
  EXPECT_NE(window_.timeline()->Layout().FindThread(182), nullptr);
}

}  // namespace
}  // namespace napiscope::gui
