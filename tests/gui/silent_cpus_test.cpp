// A trace of a few CPUs of a larger machine (recorded with a CPU mask, or one CPU's dump): the
// CPUs without events start hidden, out of the timeline, the CPUs menu and the charts.
#include <QAction>
#include <QComboBox>
#include <QMenu>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "charts_panel.h"
#include "main_window.h"
#include "timeline_view.h"
#include "tracegen/scenario.h"

namespace napiscope::gui {
namespace {

// 8 CPUs; a task runs on CPUs 5 and 6, with a hard IRQ on CPU 6. The others record nothing.
QString WriteSparseTrace(const QTemporaryDir& dir) {
  tracegen::Scenario s(8);
  s.Task(100, "iperf3").Task(101, "netperf");
  s.Switch(5, 1'000, 0, "R", 100);
  s.Switch(6, 1'500, 0, "R", 101);
  s.IrqEntry(6, 2'000, 30, "eth0");
  s.IrqExit(6, 2'400, 30);
  s.Switch(5, 9'000, 100, "S", 0);
  s.Switch(6, 9'500, 101, "S", 0);
  QString path = dir.filePath("sparse.dat");
  EXPECT_TRUE(s.WriteTraceDat(path.toStdString()).ok());
  return path;
}

QMenu* CpusMenu(MainWindow& window) {
  for (QMenu* menu : window.findChildren<QMenu*>()) {
    if (menu->title() == "C&PUs") return menu;
  }
  return nullptr;
}

std::vector<int> ShownCpus(const TimelineView& view, int cpus) {
  std::vector<int> shown;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (view.CpuVisible(cpu)) shown.push_back(cpu);
  }
  return shown;
}

TEST(SilentCpus, StartHiddenAndTheCpusWithEventsShowTheirLanes) {
  QTemporaryDir dir;
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(WriteSparseTrace(dir))) << window.LastError().toStdString();
  EXPECT_EQ(window.trace()->active_cpus, (std::vector<int>{5, 6}));
  const TimelineView& view = *window.timeline();
  EXPECT_EQ(ShownCpus(view, 8), (std::vector<int>{5, 6}));
  // Two CPUs shown: each has its four lanes, as a 2-CPU trace would.
  EXPECT_TRUE(view.CpuExpanded(5));
  EXPECT_TRUE(view.CpuExpanded(6));
  EXPECT_NE(view.Layout().Find(6, RowKind::kHardirq), nullptr);
  EXPECT_TRUE(window.StatusText().contains("8 CPUs (6 without events, hidden"))
      << window.StatusText().toStdString();
  // The charts have the CPUs with events only.
  window.charts()->WaitForRefresh();
  QComboBox* delay_cpu = window.charts()->findChild<QComboBox*>();
  ASSERT_NE(delay_cpu, nullptr);
  QStringList choices;
  for (int i = 0; i < delay_cpu->count(); ++i) choices << delay_cpu->itemText(i);
  EXPECT_EQ(choices, (QStringList{"all CPUs", "CPU 5", "CPU 6"}));
}

TEST(SilentCpus, TheCpusMenuListsTheCpusWithEventsAndOneSwitchForTheRest) {
  QTemporaryDir dir;
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(WriteSparseTrace(dir))) << window.LastError().toStdString();
  QMenu* menu = CpusMenu(window);
  ASSERT_NE(menu, nullptr);
  QStringList items;
  QAction* silent = nullptr;
  QAction* with_events = nullptr;
  for (QAction* action : menu->actions()) {
    if (action->isSeparator()) continue;
    items << action->text();
    if (action->text() == "Show the 6 CPUs with&out events") silent = action;
    if (action->text() == "Show all &with events") with_events = action;
  }
  EXPECT_EQ(items, (QStringList{"Show all &with events", "Show the 6 CPUs with&out events",
                                "&Expand all", "&Compact all", "CPU 5", "CPU 6"}));
  ASSERT_NE(silent, nullptr);
  ASSERT_NE(with_events, nullptr);
  EXPECT_FALSE(silent->isChecked());
  silent->trigger();
  EXPECT_EQ(ShownCpus(*window.timeline(), 8), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(silent->isChecked());
  // Hiding a CPU with events leaves the switch on; hiding the others again leaves it hidden.
  window.timeline()->SetCpuVisible(5, false);
  EXPECT_TRUE(silent->isChecked());
  silent->trigger();
  EXPECT_EQ(ShownCpus(*window.timeline(), 8), (std::vector<int>{6}));
  EXPECT_FALSE(silent->isChecked());
  with_events->trigger();
  EXPECT_EQ(ShownCpus(*window.timeline(), 8), (std::vector<int>{5, 6}));
  // With the CPUs with events hidden, hiding the silent ones too brings the former back.
  silent->trigger();
  window.timeline()->ShowOnlyCpus({0, 1, 2, 3, 4, 7});
  EXPECT_TRUE(silent->isChecked());
  silent->trigger();
  EXPECT_EQ(ShownCpus(*window.timeline(), 8), (std::vector<int>{5, 6}));
  EXPECT_FALSE(silent->isChecked());
}

TEST(SilentCpus, AFindingAboutEveryCpuDoesNotShowTheSilentOnes) {
  QTemporaryDir dir;
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(WriteSparseTrace(dir))) << window.LastError().toStdString();
  Finding unavailable;
  unavailable.rule = "analysis-unavailable";
  window.ShowFinding(unavailable);
  EXPECT_EQ(ShownCpus(*window.timeline(), 8), (std::vector<int>{5, 6}));
  // A finding about a silent CPU shows it.
  Finding about_cpu2 = unavailable;
  about_cpu2.cpu = 2;
  window.ShowFinding(about_cpu2);
  EXPECT_EQ(ShownCpus(*window.timeline(), 8), (std::vector<int>{2, 5, 6}));
}

TEST(SilentCpus, ATraceWhoseCpusAllHaveEventsShowsThemAll) {
  QTemporaryDir dir;
  tracegen::Scenario each(3);
  each.Task(100, "a").Task(101, "b").Task(102, "c");
  for (int cpu = 0; cpu < 3; ++cpu) each.Switch(cpu, 1'000 + cpu, 0, "R", 100 + cpu);
  QString path = dir.filePath("all.dat");
  ASSERT_TRUE(each.WriteTraceDat(path.toStdString()).ok());
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(path)) << window.LastError().toStdString();
  EXPECT_EQ(ShownCpus(*window.timeline(), 3), (std::vector<int>{0, 1, 2}));
  QMenu* menu = CpusMenu(window);
  ASSERT_NE(menu, nullptr);
  EXPECT_EQ(menu->actions().value(0)->text(), "Show &all");
  for (QAction* action : menu->actions()) EXPECT_FALSE(action->text().contains("with&out"));
  EXPECT_FALSE(window.StatusText().contains("without")) << window.StatusText().toStdString();
}

}  // namespace
}  // namespace napiscope::gui
