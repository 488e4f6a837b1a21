// 16 to 256 CPUs on one screen: compact rows, expanding on demand, CPUs scrolled under a ruler
// that stays, findings scrolled into view, unknown time drawn under what was recorded.
#include <QApplication>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include "gui_test_support.h"
#include "support/test_support.h"
#include "main_window.h"
#include "palette.h"
#include "timeline_view.h"
#include "tracegen/synthetic.h"

namespace napiscope::gui {
namespace {

// A synthetic trace of `cpus` CPUs (each loses events once, half way through).
std::shared_ptr<const LoadedTrace> Synthetic(int cpus, int64_t events) {
  static QTemporaryDir dir;
  std::string path = dir.filePath(QString("synthetic-%1.dat").arg(cpus)).toStdString();
  tracegen::SyntheticOptions options;
  options.cpus = cpus;
  options.events = events;
  EXPECT_TRUE(tracegen::WriteSyntheticTrace(path, options).ok());
  auto trace = std::make_shared<LoadedTrace>();
  absl::Status status = LoadTraceForView(path, {}, trace.get());
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok() ? trace : nullptr;
}

TEST(ManyCpus, SixteenCpusAreCompactRowsThatAllFitTheView) {
  auto trace = Synthetic(16, 16 * 2200);
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 450);
  view.SetTrace(trace);
  TimelineLayout layout = view.Layout();
  ASSERT_EQ(layout.rows().size(), 16u);
  for (const LaneRow& row : layout.rows()) {
    EXPECT_EQ(row.kind, RowKind::kCompact);
    EXPECT_GE(row.top, layout.rows_top()) << "CPU " << row.cpu;
    EXPECT_LE(row.bottom(), layout.height()) << "CPU " << row.cpu;
    EXPECT_GE(row.height, TimelineLayout::kMinCompactHeight);
  }
  EXPECT_EQ(layout.max_scroll(), 0);
}

TEST(ManyCpus, ACompactRowShowsTaskSoftirqAndHardIrqByHeight) {
  auto trace = Synthetic(16, 16 * 2200);
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 450);
  view.SetTrace(trace);
  // Zoom to the first softirq run of CPU 5 so that it is many pixels wide.
  const TimelineLane& softirqs = trace->timeline.lane(5, Lane::kSoftirq);
  ASSERT_GT(softirqs.size(), 0u);
  TimelineInterval run = softirqs.At(0);
  view.SetRange(run.start_ns - run.duration_ns(), run.end_ns + run.duration_ns());
  QImage image = testing::Render(view);
  TimelineLayout layout = view.Layout();
  const LaneRow* row = layout.Find(5, RowKind::kCompact);
  ASSERT_NE(row, nullptr);
  int x = static_cast<int>(AxisOf(view.state(), layout).XOf((run.start_ns + run.end_ns) / 2));
  QColor vector = palette::VectorColor(trace->timeline.items()[run.item].vec);
  // The softirq fills the row's lower part; the row's top shows the task it ran in, or nothing.
  EXPECT_EQ(image.pixelColor(x, row->bottom() - 4).name(), vector.name());
  EXPECT_NE(image.pixelColor(x, row->top + 2).name(), vector.name());
}

TEST(ManyCpus, ClickingACpuNameExpandsItAndAgainCompactsIt) {
  auto trace = Synthetic(16, 16 * 2200);
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 450);
  view.SetTrace(trace);
  TimelineLayout compact = view.Layout();  // a copy: the rows must outlive the next statement
  const LaneRow* row = compact.Find(3, RowKind::kCompact);
  ASSERT_NE(row, nullptr);
  QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, QPoint(20, row->center()));
  EXPECT_TRUE(view.CpuExpanded(3));
  TimelineLayout layout = view.Layout();
  ASSERT_NE(layout.Find(3, RowKind::kSoftirq), nullptr);
  EXPECT_EQ(layout.Find(3, RowKind::kCompact), nullptr);
  EXPECT_EQ(layout.rows().size(), 15u + 4u);
  EXPECT_FALSE(view.state().marker_a.has_value());  // a click on a name sets no marker
  QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier,
                    QPoint(20, layout.Find(3, RowKind::kTask)->center()));
  EXPECT_FALSE(view.CpuExpanded(3));
}

TEST(ManyCpus, CpusScrollUnderARulerThatStays) {
  auto trace = Synthetic(64, 64 * 1100);
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 400);
  view.SetTrace(trace);
  TimelineLayout before = view.Layout();
  ASSERT_GT(before.max_scroll(), 0);
  ASSERT_GT(before.CpuSpan(60)->first, before.height());  // CPU 60 is below the view
  view.ScrollToCpu(60);
  TimelineLayout after = view.Layout();
  auto span = after.CpuSpan(60);
  ASSERT_TRUE(span);
  EXPECT_GE(span->first, after.rows_top());
  EXPECT_LE(span->second, after.height());
  // The ruler is still painted at the top, over the scrolled rows.
  QImage image = testing::Render(view);
  EXPECT_EQ(image.pixelColor(TimelineLayout::kLabelWidth + 40, 1).name(),
            palette::LabelBackground().name());
  EXPECT_EQ(after.RowAt(TimelineLayout::kRulerHeight - 2), nullptr);
  // Shift+wheel scrolls back up.
  QPoint center(700, 200);
  QWheelEvent wheel(center, view.mapToGlobal(center), QPoint(), QPoint(0, 1200), Qt::NoButton,
                    Qt::ShiftModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  EXPECT_LT(view.state().scroll_y, view.Layout().max_scroll());
}

TEST(ManyCpus, CpusOptionShowsOnlyThoseCpus) {
  auto trace = Synthetic(16, 16 * 2200);
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 450);
  view.SetTrace(trace);
  view.ShowOnlyCpus({0, 1, 2, 3, 8});
  std::vector<int> shown;
  TimelineLayout layout = view.Layout();
  for (const LaneRow& row : layout.rows()) shown.push_back(row.cpu);
  EXPECT_EQ(shown, (std::vector<int>{0, 1, 2, 3, 8}));
}

// Lost events (each synthetic CPU loses some half way) are drawn light, under what was recorded.
TEST(ManyCpus, UnknownTimeIsALightHatchUnderRecordedActivity) {
  auto trace = Synthetic(16, 16 * 2200);
  ASSERT_NE(trace, nullptr);
  const std::vector<TimelineGap>& gaps = trace->timeline.gaps(2);
  ASSERT_FALSE(gaps.empty());
  TimelineView view;
  view.resize(1400, 450);
  view.SetTrace(trace);
  TimelineGap gap = gaps.front();
  view.SetRange(gap.start_ns - (gap.end_ns - gap.start_ns), gap.end_ns + (gap.end_ns - gap.start_ns));
  QImage image = testing::Render(view);
  TimelineLayout layout = view.Layout();
  const LaneRow* row = layout.Find(2, RowKind::kCompact);
  ASSERT_NE(row, nullptr);
  int x0 = static_cast<int>(AxisOf(view.state(), layout).XOf(gap.start_ns)) + 2;
  int x1 = static_cast<int>(AxisOf(view.state(), layout).XOf(gap.end_ns)) - 2;
  ASSERT_GT(x1, x0);
  int light = 0;
  for (int x = x0; x < x1; ++x) {
    QColor color = image.pixelColor(x, row->center());
    EXPECT_GT(color.lightness(), 60) << "x " << x;  // never near-black
    light += color == palette::GapFill() || color == palette::GapHatch();
  }
  EXPECT_GT(light, (x1 - x0) / 2);
  bool listed = false;
  for (const LegendGroup& group : palette::Legend()) {
    for (const LegendEntry& entry : group.entries) listed = listed || entry.color == palette::GapFill();
  }
  EXPECT_TRUE(listed);
}

TEST(ManyCpus, SelectingAFindingScrollsItsCpuIntoView) {
  QTemporaryDir dir;
  std::string path = dir.filePath("s64.dat").toStdString();
  tracegen::SyntheticOptions options;
  options.cpus = 64;
  options.events = 64 * 1100;
  ASSERT_TRUE(tracegen::WriteSyntheticTrace(path, options).ok());
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1200, 700);
  window.show();
  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(path)));
  QApplication::processEvents();
  TimelineLayout layout = window.timeline()->Layout();
  ASSERT_GT(layout.CpuSpan(60)->second, layout.height()) << "CPU 60 starts off screen";
  Finding finding;
  finding.rule = "softirq-latency";
  finding.cpu = 60;
  finding.start_ns = window.trace()->timeline.start_ns() + 1'000'000;
  finding.end_ns = finding.start_ns + 100'000;
  window.ShowFinding(finding);
  layout = window.timeline()->Layout();
  EXPECT_GE(layout.CpuSpan(60)->first, layout.rows_top());
  EXPECT_LE(layout.CpuSpan(60)->second, layout.height());
  EXPECT_EQ(window.timeline()->state().highlight_cpus, std::vector<int>{60});
}

}  // namespace
}  // namespace napiscope::gui
