// The charts under the timeline show every bin's and bar's label whole, at the window's default
// size: no "25…" for 256ns, no label hidden because its neighbours overlap it.
#include <map>
#include <string>

#include <QApplication>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QScrollArea>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalPercentBarSeries>

#include <gtest/gtest.h>

#include "charts_panel.h"
#include "main_window.h"
#include "support/test_support.h"
#include "tracegen/scenario.h"

namespace napiscope::gui {
namespace {

using napiscope::testing::TestData;

// The labels the category axis of `chart` asks for ("" when it has none).
QStringList CategoryLabels(QChart* chart) {
  for (QAbstractAxis* axis : chart->axes()) {
    if (auto* category = qobject_cast<QBarCategoryAxis*>(axis)) return category->categories();
  }
  return {};
}

// The text of every text item `view` draws.
QStringList VisibleTexts(QChartView* view) {
  QStringList texts;
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* text = dynamic_cast<QGraphicsTextItem*>(item);
    if (text != nullptr && text->isVisible()) texts << text->toPlainText();
  }
  return texts;
}

class ChartLabels : public ::testing::TestWithParam<const char*> {};

TEST_P(ChartLabels, EveryCategoryLabelIsShownWhole) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(TestData(GetParam()))));
  QApplication::processEvents();
  int labels = 0;
  for (int index = 0; index < 4; ++index) {
    QChartView* view = window.charts()->view(index);
    SCOPED_TRACE(view->chart()->title().toStdString());
    QStringList shown = VisibleTexts(view);
    for (QString label : CategoryLabels(view->chart())) {
      ++labels;
      label = QTextDocumentFragment::fromHtml(label).toPlainText();  // drawn as rich text
      EXPECT_TRUE(shown.contains(label))
          << "label '" << label.toStdString() << "' not shown whole; shown: "
          << shown.join(" | ").toStdString();
    }
  }
  EXPECT_GT(labels, 12);  // the delay bins, the CPUs and the NAPI bins at least
}

INSTANTIATE_TEST_SUITE_P(Traces, ChartLabels,
                         ::testing::Values("real/server16-softirq-napi.dat",
                                           "real/veth-threaded-napi.dat",
                                           "scenarios/ksoftirqd_blocked.dat",
                                           "scenarios/rt_wake_latency.dat",
                                           "text/kernel-6.18-irq-info.txt.gz"));

// Text printed to 1 us holds no delay between 0 and 1 us: the delay chart had 13 empty bins
// from "0ns" to "256ns". It starts with the delays under the step, then the first bin a
// multiple of it can fall in.
TEST(DelayChart, TimesPrintedToAStepHaveNoBinsBelowIt) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.OpenTraceAndWait(
      QString::fromStdString(TestData("text/kernel-6.18-irq-info.txt.gz"))));
  QApplication::processEvents();
  QChart* chart = window.charts()->view(0)->chart();
  QStringList labels = CategoryLabels(chart);
  ASSERT_GE(labels.size(), 3);
  EXPECT_EQ(labels[0], "&lt;1.0us");  // rich text: a bare "<" hid the label
  EXPECT_EQ(labels[1], "512ns");      // 1 us falls in [512 ns, 1024 ns)
  EXPECT_FALSE(labels.contains("256ns"));
  EXPECT_EQ(chart->axes(Qt::Horizontal).first()->titleText(),
            "delay: from the label to twice it (times printed to 1.0us)");
  // A nanosecond trace keeps every bin.
  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(TestData("real/idle.dat"))));
  QApplication::processEvents();
  EXPECT_EQ(window.charts()->view(0)->chart()->axes(Qt::Horizontal).first()->titleText(),
            "delay: from the label to twice it");
}

// The activations chart lists threads by comm on a rich-text axis: a comm with '<' or '&' lost
// its label. Each is shown as written.
TEST(ActivationsChart, AThreadNameWithMarkupCharactersIsShownAsWritten) {
  tracegen::Scenario s(2);
  s.Task(354, "irq/354-a&b<c>", 49);
  for (int i = 0; i < 3; ++i) {
    TimestampNs at = 1'000'000 + i * 100'000;
    s.IrqEntry(0, at, 354, "a&b<c>");
    s.Waking(0, at + 200, 354, 1);
    s.IrqExit(0, at + 500, 354);
    s.Switch(1, at + 9'000, 0, "R", 354);
    s.Switch(1, at + 20'000, 354, "S", 0);
  }
  QTemporaryDir dir;
  std::string path = dir.filePath("markup.dat").toStdString();
  ASSERT_TRUE(s.WriteTraceDat(path).ok());
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(path)));
  QApplication::processEvents();
  bool found = false;
  for (int index = 0; index < 4; ++index) {
    QChartView* view = window.charts()->view(index);
    if (!CategoryLabels(view->chart()).contains("irq/354-a&amp;b&lt;c&gt;")) continue;
    found = true;
    EXPECT_TRUE(VisibleTexts(view).contains("irq/354-a&b<c>"));
  }
  EXPECT_TRUE(found);
}

// A panel too narrow for two charts side by side (a 1366-pixel laptop screen) lays them in one
// column and scrolls down only; a wide one puts two side by side. At 1366 pixels the panel
// scrolled both ways and cut off the CPU time chart's legend.
TEST(ChartsLayout, OneColumnWhenTwoDoNotFitSideBySide) {
  MainWindow window;
  window.resize(1366, 768);
  window.show();
  ASSERT_TRUE(
      window.OpenTraceAndWait(QString::fromStdString(TestData("real/server16-softirq-napi.dat"))));
  ChartsPanel* charts = window.charts();
  auto origin = [charts](int index) { return charts->view(index)->mapTo(charts, QPoint(0, 0)); };
  QApplication::processEvents();
  EXPECT_EQ(origin(1).x(), origin(0).x());  // CPU time under the delays
  EXPECT_GT(origin(1).y(), origin(0).y());
  EXPECT_GT(origin(3).y(), origin(2).y());
  EXPECT_FALSE(charts->scroll_area()->horizontalScrollBar()->isVisible());

  window.resize(2560, 1440);
  QApplication::processEvents();
  EXPECT_GT(origin(1).x(), origin(0).x());  // side by side
  EXPECT_EQ(origin(2).x(), origin(0).x());
  EXPECT_GT(origin(2).y(), origin(0).y());
  EXPECT_FALSE(charts->scroll_area()->horizontalScrollBar()->isVisible());
}

// The labels of the CPU time chart's parts, each with its total over the CPUs shown.
std::map<std::string, qreal> CpuTimeParts(MainWindow& window) {
  std::map<std::string, qreal> parts;
  for (QAbstractSeries* series : window.charts()->view(1)->chart()->series()) {
    auto* bars = qobject_cast<QHorizontalPercentBarSeries*>(series);
    if (bars == nullptr) continue;
    for (QBarSet* set : bars->barSets()) {
      for (int i = 0; i < set->count(); ++i) parts[set->label().toStdString()] += set->at(i);
    }
  }
  return parts;
}

// Without sched_switch no task is known to run, and nothing says the CPU was idle: the CPU
// time chart showed every moment outside IRQs and softirqs as idle; it is unknown.
TEST(CpuTimeChart, WithoutSchedSwitchTheRestIsUnknownNotIdle) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(
      window.OpenTraceAndWait(QString::fromStdString(TestData("text/trace-cmd-stacktrace.txt"))));
  window.charts()->WaitForRefresh();
  std::map<std::string, qreal> parts = CpuTimeParts(window);
  EXPECT_FALSE(parts.contains("idle"));
  EXPECT_GT(parts["unknown"], 0);
  EXPECT_GT(parts["hard IRQ"], 0);
  EXPECT_GT(parts["NET_RX"], 0);
  // Its title says why no task is shown, as the report says the analysis did not run.
  QString title = window.charts()->view(1)->chart()->title();
  EXPECT_TRUE(title.endsWith("<br>(tasks not recorded: no sched:sched_switch events)"))
      << title.toStdString();
  // A trace with sched_switch keeps its idle time.
  ASSERT_TRUE(
      window.OpenTraceAndWait(QString::fromStdString(TestData("real/veth-threaded-napi.dat"))));
  window.charts()->WaitForRefresh();
  EXPECT_GT(CpuTimeParts(window)["idle"], 0);
  EXPECT_FALSE(window.charts()->view(1)->chart()->title().contains("not recorded"));
}

// A chart whose events were not recorded said "no NAPI poll in this range", as if the range
// had none: it names the missing events.
TEST(NotRecordedCharts, NameTheEventsTheTraceLacks) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.OpenTraceAndWait(
      QString::fromStdString(TestData("scenarios/irq_threads_bouncing.dat"))));
  window.charts()->WaitForRefresh();
  auto title = [&](int index) { return window.charts()->view(index)->chart()->title(); };
  EXPECT_TRUE(
      title(0).endsWith("(not recorded:<br>no irq:softirq_raise, irq:softirq_entry "
                        "events)"))
      << title(0).toStdString();
  EXPECT_TRUE(title(3).endsWith("(not recorded:<br>no napi:napi_poll events)"))
      << title(3).toStdString();
  EXPECT_FALSE(title(2).contains("not recorded"));  // its IRQ threads ran
  ASSERT_TRUE(
      window.OpenTraceAndWait(QString::fromStdString(TestData("real/veth-threaded-napi.dat"))));
  window.charts()->WaitForRefresh();
  for (int index = 0; index < 4; ++index) EXPECT_FALSE(title(index).contains("not recorded"));
}

}  // namespace
}  // namespace napiscope::gui
