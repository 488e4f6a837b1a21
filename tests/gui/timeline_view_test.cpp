#include "timeline_view.h"

#include <QTest>
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "gui_test_support.h"
#include "napiscope/contexts.h"
#include "napiscope/loader.h"
#include "palette.h"
#include "support/test_support.h"
#include "timeline_hit.h"
#include "timeline_painter.h"

namespace napiscope::gui {
namespace {

using testing::ColorAt;
using testing::LoadTestTrace;
using testing::Render;
using Span = std::pair<TimestampNs, TimestampNs>;

// softirq_contexts (testdata/scenarios/README.md): on CPU3, TIMER raised at T+30.5 us runs in
// ksoftirqd/3 at T+110.5 us (80 us later); on CPU0 NET_RX waits 2 us and runs at IRQ exit.
constexpr TimestampNs kTimerRaise = 3'000'030'500;
constexpr TimestampNs kTimerEntry = 3'000'110'500;

class Recorder : public ContextListener {
 public:
  void OnInterval(const ContextInterval& interval) override { intervals.push_back(interval); }
  std::vector<ContextInterval> intervals;
};

// The view and the file's own tracker agree on every lane: what is drawn is what the core says.
TEST(TimelineView, LanesAreTheTrackersIntervals) {
  auto trace = LoadTestTrace("scenarios/softirq_contexts.dat");
  ASSERT_NE(trace, nullptr);
  TraceContext context;
  ContextTracker tracker;
  Recorder recorder;
  tracker.AddListener(&recorder);
  ASSERT_TRUE(
      LoadTrace(napiscope::testing::TestData("scenarios/softirq_contexts.dat"), context, tracker)
          .ok());
  std::map<std::pair<int, Lane>, std::vector<Span>> expected;
  for (const ContextInterval& i : recorder.intervals) {
    Lane lane = i.frame.kind == ContextKind::kTask      ? Lane::kTask
                : i.frame.kind == ContextKind::kHardirq ? Lane::kHardirq
                : i.frame.kind == ContextKind::kSoftirq ? Lane::kSoftirq
                                                        : Lane::kNapiPoll;
    if (lane == Lane::kTask && i.frame.task_class == TaskClass::kIdle) continue;
    expected[{i.frame.cpu, lane}].emplace_back(i.frame.start_ns, i.end_ns);
  }
  TimelineView view;
  view.resize(1600, 600);
  view.SetTrace(trace);
  ASSERT_EQ(trace->timeline.cpus(), 4);
  int intervals = 0;
  for (int cpu = 0; cpu < 4; ++cpu) {
    for (Lane lane : {Lane::kTask, Lane::kHardirq, Lane::kSoftirq, Lane::kNapiPoll}) {
      // The whole trace at the view's width: few enough intervals to come back one by one.
      LaneSlice slice = trace->timeline.Query(cpu, lane, view.state().from_ns,
                                              view.state().to_ns + 1, view.Layout().time_width());
      ASSERT_FALSE(slice.aggregated);
      std::vector<Span> drawn;
      for (const TimelineInterval& i : slice.intervals) drawn.emplace_back(i.start_ns, i.end_ns);
      std::vector<Span> want = expected[{cpu, lane}];
      std::sort(want.begin(), want.end());
      std::sort(drawn.begin(), drawn.end());
      EXPECT_EQ(drawn, want) << "cpu " << cpu << " " << LaneName(lane);
      intervals += static_cast<int>(drawn.size());
    }
  }
  EXPECT_GT(intervals, 40);
}

class RenderedScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = LoadTestTrace("scenarios/softirq_contexts.dat");
    ASSERT_NE(trace_, nullptr);
    view_.resize(1400, 500);
    view_.SetTrace(trace_);
    view_.SetRange(kTimerRaise - 10'000, kTimerEntry + 30'000);
  }

  // Near the top of a row's block: below its outline, above any label text.
  static int NearTop(RowKind kind) { return -TimelineLayout::RowHeight(kind) / 2 + 4; }

  TimelineInterval TimerRun() const {
    std::vector<TimelineInterval> runs =
        trace_->timeline.Overlapping(3, Lane::kSoftirq, kTimerEntry, kTimerEntry);
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? TimelineInterval{} : runs.front();
  }

  std::shared_ptr<const LoadedTrace> trace_;
  TimelineView view_;
};

TEST_F(RenderedScenario, KnownPixelsHaveTheirVectorAndKindColours) {
  QImage image = Render(view_);
  TimelineInterval run = TimerRun();
  ASSERT_EQ(run.start_ns, kTimerEntry);
  ASSERT_GT(run.duration_ns(), 400);  // several pixels at ~100 ns per pixel
  TimestampNs mid_run = (run.start_ns + run.end_ns) / 2;
  TimestampNs mid_wait = (kTimerRaise + kTimerEntry) / 2;
  EXPECT_EQ(ColorAt(view_, image, 3, RowKind::kSoftirq, mid_run, NearTop(RowKind::kSoftirq)).name(),
            palette::VectorColor(kTimer).name());
  EXPECT_EQ(ColorAt(view_, image, 3, RowKind::kSoftirq, mid_wait).name(),
            palette::KeyColor(Lane::kSoftirqWait, kTimer).name());
  // Above the thin wait bar nothing runs while TIMER waits.
  EXPECT_EQ(
      ColorAt(view_, image, 3, RowKind::kSoftirq, mid_wait, NearTop(RowKind::kSoftirq)).name(),
      palette::LaneBackground().name());
  // ksoftirqd/3 holds CPU3 while it runs TIMER.
  EXPECT_EQ(ColorAt(view_, image, 3, RowKind::kTask, mid_run, NearTop(RowKind::kTask)).name(),
            palette::TaskClassColor(TaskClass::kKsoftirqd).name());
}

// One colour rule for raise -> entry waits: a compact row draws them too, in the colour of an
// expanded row's wait bar and of the legend's "raise → entry" swatch, whatever the vector.
TEST_F(RenderedScenario, CompactAndExpandedRowsDrawWaitsInTheLegendsColour) {
  TimestampNs mid_wait = (kTimerRaise + kTimerEntry) / 2;
  QColor legend;
  for (const LegendGroup& group : palette::Legend()) {
    for (const LegendEntry& entry : group.entries) {
      if (entry.label == "raise → entry") legend = entry.color;
    }
  }
  ASSERT_TRUE(legend.isValid());
  QImage expanded = Render(view_);
  EXPECT_EQ(ColorAt(view_, expanded, 3, RowKind::kSoftirq, mid_wait).name(), legend.name());
  view_.SetCpuExpanded(3, false);
  QImage compact = Render(view_);
  EXPECT_EQ(ColorAt(view_, compact, 3, RowKind::kCompact, mid_wait).name(), legend.name());
  // The bar is thin: above it the task that holds CPU3 shows.
  EXPECT_NE(ColorAt(view_, compact, 3, RowKind::kCompact, mid_wait, -6).name(), legend.name());
  // Its tooltip names the wait.
  TimelineLayout layout = view_.Layout();
  const LaneRow* row = layout.Find(3, RowKind::kCompact);
  ASSERT_NE(row, nullptr);
  TimeAxis axis = AxisOf(view_.state(), layout);
  std::optional<TimelineHit> hit =
      HitTest(*trace_, view_.state(), layout, QPoint(static_cast<int>(axis.XOf(mid_wait)), row->center()));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->lane, Lane::kSoftirqWait);
}

TEST_F(RenderedScenario, VectorFilterHidesOtherVectors) {
  TimelineFilter filter;
  filter.vecs = {kNetRx};
  view_.SetItemMask(trace_->timeline.MatchingItems(filter));
  QImage image = Render(view_);
  TimelineInterval run = TimerRun();
  TimestampNs mid_run = (run.start_ns + run.end_ns) / 2;
  EXPECT_EQ(ColorAt(view_, image, 3, RowKind::kSoftirq, mid_run, NearTop(RowKind::kSoftirq)).name(),
            palette::LaneBackground().name());
  EXPECT_EQ(
      ColorAt(view_, image, 3, RowKind::kTask, mid_run, NearTop(RowKind::kTask)).name(),
      palette::TaskClassColor(TaskClass::kKsoftirqd).name());  // tasks are not filtered by vector
}

TEST_F(RenderedScenario, HiddenCpusTakeNoRows) {
  int height = view_.Layout().content_height();
  view_.SetCpuVisible(1, false);
  EXPECT_EQ(view_.Layout().Find(1, RowKind::kTask), nullptr);
  EXPECT_NE(view_.Layout().Find(3, RowKind::kTask), nullptr);
  EXPECT_LT(view_.Layout().content_height(), height);
}

TEST_F(RenderedScenario, KeysZoomAndPanAroundTheCentre) {
  TimestampNs from = view_.state().from_ns;
  TimestampNs to = view_.state().to_ns;
  TimestampNs center = (from + to) / 2;
  QTest::keyClick(&view_, Qt::Key_W);
  TimestampNs span = view_.state().to_ns - view_.state().from_ns;
  EXPECT_NEAR(static_cast<double>(span), (to - from) / 1.5, 2.0);
  EXPECT_NEAR(static_cast<double>((view_.state().from_ns + view_.state().to_ns) / 2),
              static_cast<double>(center), 200.0);
  QTest::keyClick(&view_, Qt::Key_S);
  EXPECT_NEAR(static_cast<double>(view_.state().to_ns - view_.state().from_ns),
              static_cast<double>(to - from), 2.0);
  TimestampNs before = view_.state().from_ns;
  QTest::keyClick(&view_, Qt::Key_D);
  EXPECT_NEAR(static_cast<double>(view_.state().from_ns - before), 0.15 * (to - from), 2.0);
  QTest::keyClick(&view_, Qt::Key_A);
  EXPECT_NEAR(static_cast<double>(view_.state().from_ns), static_cast<double>(before), 2.0);
}

TEST_F(RenderedScenario, WheelZoomKeepsTheTimeUnderTheCursor) {
  TimelineLayout layout = view_.Layout();
  QPointF cursor(layout.time_left() + 300, 100);
  TimeAxis axis = AxisOf(view_.state(), layout);
  TimestampNs under_cursor = axis.TimeAt(cursor.x());
  QWheelEvent wheel(cursor, view_.mapToGlobal(cursor), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view_, &wheel);
  TimeAxis zoomed = AxisOf(view_.state(), layout);
  EXPECT_LT(zoomed.to_ns - zoomed.from_ns, axis.to_ns - axis.from_ns);
  EXPECT_NEAR(static_cast<double>(zoomed.TimeAt(cursor.x())), static_cast<double>(under_cursor),
              zoomed.NsPerPixel() + 1);
}

TEST_F(RenderedScenario, ClicksSetMarkersAndDragPans) {
  TimelineLayout layout = view_.Layout();
  int y = layout.Find(0, RowKind::kTask)->center();
  QTest::mouseClick(&view_, Qt::LeftButton, Qt::NoModifier, QPoint(layout.time_left() + 100, y));
  QTest::mouseClick(&view_, Qt::LeftButton, Qt::ShiftModifier, QPoint(layout.time_left() + 600, y));
  ASSERT_TRUE(view_.state().marker_a && view_.state().marker_b);
  double ns_per_pixel =
      static_cast<double>(view_.state().to_ns - view_.state().from_ns) / layout.time_width();
  EXPECT_NEAR(static_cast<double>(*view_.state().marker_b - *view_.state().marker_a),
              500 * ns_per_pixel, 2 * ns_per_pixel);
  EXPECT_EQ(view_.SelectedRange().first, *view_.state().marker_a);

  TimestampNs from = view_.state().from_ns;
  QTest::mousePress(&view_, Qt::LeftButton, Qt::NoModifier, QPoint(700, y));
  QMouseEvent move(QEvent::MouseMove, QPointF(500, y), view_.mapToGlobal(QPointF(500, y)),
                   Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&view_, &move);
  QTest::mouseRelease(&view_, Qt::LeftButton, Qt::NoModifier, QPoint(500, y));
  EXPECT_NEAR(static_cast<double>(view_.state().from_ns - from), 200 * ns_per_pixel, ns_per_pixel);
}

TEST_F(RenderedScenario, DoubleClickZoomsToTheInterval) {
  TimelineInterval run = TimerRun();
  TimelineLayout layout = view_.Layout();
  TimeAxis axis = AxisOf(view_.state(), layout);
  QPoint at(static_cast<int>(axis.XOf((run.start_ns + run.end_ns) / 2)),
            layout.Find(3, RowKind::kSoftirq)->center() - 5);
  QTest::mouseDClick(&view_, Qt::LeftButton, Qt::NoModifier, at);
  EXPECT_LE(view_.state().from_ns, run.start_ns);
  EXPECT_GE(view_.state().to_ns, run.end_ns);
  EXPECT_LT(view_.state().to_ns - view_.state().from_ns, run.duration_ns() * 2);
}

// Where a time and a row are on screen.
QPoint PointAt(const TimelineView& view, int cpu, RowKind kind, TimestampNs ts_ns, int dy = 0) {
  TimelineLayout layout = view.Layout();
  TimeAxis axis = AxisOf(view.state(), layout);
  return QPoint(static_cast<int>(axis.XOf(ts_ns)), layout.Find(cpu, kind)->center() + dy);
}

TEST_F(RenderedScenario, TooltipsDescribeWhatIsUnderTheMouse) {
  TimelineInterval run = TimerRun();
  TimestampNs mid_run = (run.start_ns + run.end_ns) / 2;
  TimelineLayout layout = view_.Layout();
  QString softirq =
      DescribeAt(*trace_, view_.state(), layout, PointAt(view_, 3, RowKind::kSoftirq, mid_run, -5));
  EXPECT_TRUE(softirq.contains("TIMER softirq")) << softirq.toStdString();
  EXPECT_TRUE(softirq.contains("ran at ksoftirqd in ksoftirqd/3 (pid 39)"))
      << softirq.toStdString();
  EXPECT_TRUE(softirq.contains("raised 80.0 us before it ran")) << softirq.toStdString();
  QString wait = DescribeAt(*trace_, view_.state(), layout,
                            PointAt(view_, 3, RowKind::kSoftirq, (kTimerRaise + kTimerEntry) / 2));
  EXPECT_TRUE(wait.contains("TIMER raised → entry")) << wait.toStdString();
  EXPECT_TRUE(wait.contains("waited <b>80.0 us</b>")) << wait.toStdString();
  // Issue 66: the trace time as the event list and the report show it, beside the offset.
  EXPECT_TRUE(wait.contains("raised at 3.000030500 (+")) << wait.toStdString();
  QString task =
      DescribeAt(*trace_, view_.state(), layout, PointAt(view_, 3, RowKind::kTask, mid_run));
  EXPECT_TRUE(task.contains("ksoftirqd/3 (pid 39)")) << task.toStdString();
  EXPECT_TRUE(task.contains("ksoftirqd · nice 0 · CPU 3")) << task.toStdString();
  EXPECT_EQ(DescribeAt(*trace_, view_.state(), layout, QPoint(5, 5)), QString());
}

TEST(TimelineView, DenseSpotsAreSummarisedAndGapsExplained) {
  auto trace = LoadTestTrace("real/veth-threaded-napi.dat");
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1200, 400);
  view.SetTrace(trace);  // the whole trace: many polls per pixel on CPU0
  TimestampNs busy = trace->timeline.start_ns() + 200'000'000;
  QString napi =
      DescribeAt(*trace, view.state(), view.Layout(), PointAt(view, 0, RowKind::kNapiPoll, busy));
  EXPECT_TRUE(napi.contains("NAPI polls</b> within")) << napi.toStdString();
  EXPECT_TRUE(napi.contains("zoom in to see each one")) << napi.toStdString();
  // CPU1 lost 419790 events before its first one: unknown from the trace start.
  QString gap = DescribeAt(*trace, view.state(), view.Layout(),
                           PointAt(view, 1, RowKind::kTask, trace->timeline.start_ns() + 1000));
  EXPECT_TRUE(gap.contains("the ring buffer dropped 419790 events")) << gap.toStdString();
}

TEST(Ruler, StepsAndLabelsAreReadable) {
  EXPECT_EQ(RulerStep(1000.0, 90), 100'000);  // 90 us wanted: 100 us
  EXPECT_EQ(RulerStep(1.0, 90), 100);
  EXPECT_EQ(RulerStep(30.0, 90), 5000);
  EXPECT_EQ(RulerLabel(0, 1000), "0");
  EXPECT_EQ(RulerLabel(250'000'000, 50'000'000), "250 ms");
  EXPECT_EQ(RulerLabel(150'100'000, 100'000), "150.1 ms");
  EXPECT_EQ(RulerLabel(150'020'000, 20'000), "150.02 ms");
  EXPECT_EQ(RulerLabel(1'234'500'000, 500'000), "1.2345 s");
  EXPECT_EQ(RulerLabel(800, 200), "800 ns");
}

}  // namespace
}  // namespace napiscope::gui

namespace napiscope::gui {
namespace {

// The frame kept between repaints draws exactly what a frame drawn anew draws: with markers
// moved over it, and after the range, the filter or the pinned lanes change.
TEST(TimelineView, CachedFramesAreTheFramesDrawnAnew) {
  auto trace = testing::LoadTestTrace("real/server16-softirq-napi.dat");
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 700);
  view.SetTrace(trace);  // the whole trace: dense, aggregated columns
  TimestampNs start = trace->timeline.start_ns();
  TimestampNs span = trace->timeline.end_ns() - start;
  auto same = [&](const char* what) {
    SCOPED_TRACE(what);
    QImage cached = testing::Render(view);
    QImage again = testing::Render(view);  // from the kept frame
    view.SetFrameCacheEnabled(false);
    QImage anew = testing::Render(view);
    view.SetFrameCacheEnabled(true);
    ASSERT_EQ(cached.size(), anew.size());
    EXPECT_TRUE(cached == anew);
    EXPECT_TRUE(again == anew);
  };
  same("whole trace");
  view.SetMarkers(start + span / 3, start + span / 2);
  same("markers set");
  view.SetMarkers(start + span / 4, std::nullopt);
  same("marker moved");
  view.SetRange(start + span / 10, start + span / 5);
  same("zoomed");
  TimelineFilter vector_3;
  vector_3.vecs = {3};
  view.SetItemMask(trace->timeline.MatchingItems(vector_3));
  same("filtered to NET_RX");
  view.Pin(trace->timeline.activations().empty() ? 1 : trace->timeline.activations()[0].pid);
  same("pinned");
  view.SetCpuExpanded(2, true);
  same("expanded");
  // Something moved between the two renders: the kept frame is not reused.
  QImage before = testing::Render(view);
  view.SetRange(start + span / 2, start + span / 2 + span / 7);
  EXPECT_FALSE(testing::Render(view) == before);
}

}  // namespace
}  // namespace napiscope::gui
