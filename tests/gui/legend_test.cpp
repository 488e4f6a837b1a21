// The legend names each task kind the trace shows, once, with the core's names and the colour
// the timeline draws it in: RT softirq threads (sirq-net-rx/0 of the 2.6.26-rt scenario) have
// an entry and a colour of their own, not ksoftirqd's.
#include <QStringList>

#include <gtest/gtest.h>

#include "gui_test_support.h"
#include "legend_widget.h"
#include "main_window.h"
#include "napiscope/palette.h"
#include "support/test_support.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

using testing::ColorAt;
using testing::LoadTestTrace;
using testing::Render;

const LegendGroup* TaskGroup(const std::vector<LegendGroup>& groups) {
  for (const LegendGroup& group : groups) {
    if (group.title == "Task") return &group;
  }
  return nullptr;
}

QStringList Labels(const LegendGroup& group) {
  QStringList labels;
  for (const LegendEntry& entry : group.entries) labels << entry.label;
  return labels;
}

QString CoreLabel(TaskClass task_class) {
  return QString::fromUtf8(
      ::napiscope::palette::TaskClassLabel(task_class).data(),
      static_cast<int>(::napiscope::palette::TaskClassLabel(task_class).size()));
}

QStringList LegendLabelsAfterOpening(const std::string& relative, const LegendGroup** group,
                                     MainWindow* window) {
  window->SetShowErrorDialogs(false);
  EXPECT_TRUE(
      window->OpenTraceAndWait(QString::fromStdString(napiscope::testing::TestData(relative))))
      << window->LastError().toStdString();
  *group = TaskGroup(window->legend()->groups());
  return *group != nullptr ? Labels(**group) : QStringList();
}

TEST(Legend, BeforeATraceItNamesEveryTaskKindWithTheCoresLabel) {
  MainWindow window;
  const LegendGroup* tasks = TaskGroup(window.legend()->groups());
  ASSERT_NE(tasks, nullptr);
  EXPECT_EQ(Labels(*tasks), (QStringList{"IRQ thread", "RT softirq thread", "ksoftirqd",
                                         "NAPI kthread", "RT task", "other task"}));
  std::vector<TaskClass> classes = palette::LegendTaskClasses();
  ASSERT_EQ(tasks->entries.size(), classes.size());
  for (size_t i = 0; i < classes.size(); ++i) {
    EXPECT_EQ(tasks->entries[i].label, CoreLabel(classes[i]));
    EXPECT_EQ(tasks->entries[i].color, palette::TaskClassColor(classes[i]));
  }
}

// IRQ-16 and sirq-net-rx/0 at FIFO 50, rtapp at FIFO 60, fwd and bash SCHED_OTHER; no
// ksoftirqd, no NAPI kthread.
TEST(Legend, TheRt2626ScenarioShowsItsSoftirqThreadsAsTheirOwnKind) {
  MainWindow window;
  const LegendGroup* tasks = nullptr;
  QStringList labels =
      LegendLabelsAfterOpening("scenarios/rt_2_6_26_sirq_threads.dat", &tasks, &window);
  ASSERT_NE(tasks, nullptr);
  EXPECT_EQ(labels, (QStringList{"IRQ thread", "RT softirq thread", "RT task", "other task"}));
  EXPECT_EQ(labels.count(CoreLabel(TaskClass::kSoftirqThread)), 1);
  const LegendEntry& softirq_thread = tasks->entries[1];
  EXPECT_EQ(softirq_thread.color, palette::TaskClassColor(TaskClass::kSoftirqThread));
  EXPECT_NE(softirq_thread.color, palette::TaskClassColor(TaskClass::kKsoftirqd));
}

// The window's Report tab names where the softirqs ran (softirq_thread, never task_bh_enable)
// and has the network path's priority table with both threads at FIFO 50.
TEST(Legend, TheRt2626ReportTabNamesSoftirqThreadsAndTheNetworkPath) {
  MainWindow window;
  const LegendGroup* tasks = nullptr;
  LegendLabelsAfterOpening("scenarios/rt_2_6_26_sirq_threads.dat", &tasks, &window);
  // The Report tab wraps to its pane's width: compare the text with its lines joined.
  QString text = window.SummaryText().simplified();
  EXPECT_TRUE(text.contains("NET_RX raised on CPU0 waited 1.50 ms to run (softirq_thread)"));
  EXPECT_FALSE(text.contains("task_bh_enable"));
  EXPECT_TRUE(text.contains("network path priorities"));
  EXPECT_TRUE(
      text.contains("IRQ 16 eth0 (CPU 0) -> IRQ-16 (300, RT 50) -> sirq-net-rx/0 (301, RT 50) "
                    "in softirq_thread x3"))
      << text.toStdString();
}

TEST(Legend, TheSoftirqContextsScenarioHasKsoftirqdAndNoSoftirqThread) {
  MainWindow window;
  const LegendGroup* tasks = nullptr;
  QStringList labels = LegendLabelsAfterOpening("scenarios/softirq_contexts.dat", &tasks, &window);
  ASSERT_NE(tasks, nullptr);
  EXPECT_EQ(labels.count("ksoftirqd"), 1);
  EXPECT_EQ(labels.count("IRQ thread"), 1);
  EXPECT_EQ(labels.count("NAPI kthread"), 1);
  EXPECT_EQ(labels.count("RT softirq thread"), 0);
}

// The timeline draws sirq-net-rx/0's run on CPU0 in the legend's softirq-thread colour.
TEST(Legend, TheTimelineDrawsASoftirqThreadInItsLegendColour) {
  auto trace = LoadTestTrace("scenarios/rt_2_6_26_sirq_threads.dat");
  ASSERT_NE(trace, nullptr);
  const TimelineInterval* run = nullptr;
  std::vector<TimelineInterval> runs = trace->timeline.Overlapping(
      0, Lane::kTask, trace->timeline.start_ns(), trace->timeline.end_ns());
  for (const TimelineInterval& interval : runs) {
    if (trace->timeline.items()[interval.item].task_class == TaskClass::kSoftirqThread) {
      run = &interval;
      break;
    }
  }
  ASSERT_NE(run, nullptr);
  TimelineView view;
  view.resize(1400, 500);
  view.SetTrace(trace);
  view.SetRange(run->start_ns - run->duration_ns(), run->end_ns + run->duration_ns());
  QImage image = Render(view);
  // Samples across the run's bar, near its top (above the name): the time grid's dotted lines
  // cross the bar, so most samples, not all, show the fill.
  const QString want = palette::TaskClassColor(TaskClass::kSoftirqThread).name();
  int near_top = -TimelineLayout::RowHeight(RowKind::kTask) / 2 + 4;
  int filled = 0;
  constexpr int kSamples = 9;
  for (int i = 1; i <= kSamples; ++i) {
    TimestampNs at = run->start_ns + run->duration_ns() * i / (kSamples + 1);
    if (ColorAt(view, image, 0, RowKind::kTask, at, near_top).name() == want) ++filled;
  }
  EXPECT_GE(filled, kSamples - 3) << "sirq-net-rx/0's bar is not drawn in " << want.toStdString();
}

}  // namespace
}  // namespace napiscope::gui
