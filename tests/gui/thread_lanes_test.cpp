// Pinned thread lanes, the findings of a range, sessions and range navigation.
#include "thread_lanes.h"

#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include "event_list.h"
#include "findings_panel.h"
#include "gui_test_support.h"
#include "main_window.h"
#include "napiscope/analysis_session.h"
#include "palette.h"
#include "range_analysis.h"
#include "support/test_support.h"
#include "time_text.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

QString Data(const std::string& relative) {
  return QString::fromStdString(napiscope::testing::TestData(relative));
}

// irq_threads_bouncing (testdata/scenarios/README.md): irq/354-4848400 (181) runs 8 times,
// alternating CPU1 and CPU0, each activation from the hard IRQ on CPU0.
TEST(ThreadLane, ShowsWhereAThreadRanItsWaitsAndMigrations) {
  auto trace = testing::LoadTestTrace("scenarios/irq_threads_bouncing.dat");
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(FindTasks(*trace, "irq/354"), std::vector<int32_t>{181});
  EXPECT_EQ(FindTasks(*trace, "182"), std::vector<int32_t>{182});
  EXPECT_TRUE(FindTasks(*trace, "nosuchtask").empty());
  ThreadLaneData lane = BuildThreadLane(*trace, 181);
  EXPECT_EQ(lane.name, "irq/354-4848400 (181)");
  ASSERT_EQ(lane.runs.size(), 8u);
  for (size_t i = 0; i < lane.runs.size(); ++i) {
    EXPECT_EQ(lane.runs[i].cpu, i % 2 == 0 ? 1 : 0) << "run " << i;
  }
  EXPECT_EQ(lane.migrations, 7);
  ASSERT_EQ(lane.wakes.size(), 8u);
  EXPECT_EQ(lane.wakes[0].to_ns - lane.wakes[0].from_ns, 10'000);
  EXPECT_EQ(lane.wakes[1].to_ns - lane.wakes[1].from_ns, 6'000);

  // Drawn under the ruler in the colour of the CPU of each run.
  TimelineView view;
  view.resize(1400, 500);
  view.SetTrace(trace);
  view.Pin(181);
  ThreadRun run = lane.runs[2];
  view.SetRange(run.start_ns - 20'000, run.end_ns + 20'000);
  QImage image = testing::Render(view);
  TimelineLayout layout = view.Layout();
  const LaneRow* row = layout.FindThread(181);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->top, TimelineLayout::kRulerHeight);
  EXPECT_GT(layout.rows_top(), row->bottom() - 1);
  int x = static_cast<int>(AxisOf(view.state(), layout).XOf((run.start_ns + run.end_ns) / 2));
  EXPECT_EQ(image.pixelColor(x, row->top + 4).name(), palette::CpuColor(run.cpu).name());
  view.Unpin(181);
  EXPECT_EQ(view.Layout().FindThread(181), nullptr);
}

// rt_wake_latency (testdata/scenarios/README.md): cyclictest (pid 1600, FIFO 98) is no
// service thread, so it has no activations; pinned, its lane shows the wakeups the core's
// wake-wait producer pairs: the 52 us, 4.5 us and 149.8 us waits of the report's RT rows.
TEST(ThreadLane, AnOrdinaryTasksWaitsAreTheCoresWakeWaits) {
  auto trace = testing::LoadTestTrace("scenarios/rt_wake_latency.dat");
  ASSERT_NE(trace, nullptr);
  int64_t reported = 0;
  TimestampNs longest_reported = 0;
  for (const WakeLatencyRow& row : trace->report.rt_wake_latency) {
    if (row.pid != 1600) continue;
    reported += row.latency.count;
    longest_reported = std::max(longest_reported, row.latency.max_ns);
  }
  ASSERT_EQ(reported, 3);
  ThreadLaneData lane = BuildThreadLane(*trace, 1600);
  ASSERT_EQ(lane.wakes.size(), 3u);
  std::vector<TimestampNs> waits;
  for (const ThreadWait& wake : lane.wakes) {
    EXPECT_FALSE(wake.activation.has_value());
    EXPECT_EQ(wake.to_cpu, 1);
    waits.push_back(wake.to_ns - wake.from_ns);
  }
  EXPECT_EQ(*std::max_element(waits.begin(), waits.end()), longest_reported);
  EXPECT_EQ(waits[0], 52'000);
  EXPECT_EQ(waits[1], 4'500);

  // Drawn along the bottom of the lane in the plain wakeup's colour.
  TimelineView view;
  view.resize(1400, 500);
  view.SetTrace(trace);
  view.Pin(1600);
  const ThreadWait& wait = lane.wakes[2];
  view.SetRange(wait.from_ns - (wait.to_ns - wait.from_ns), wait.to_ns + 10'000);
  QImage image = testing::Render(view);
  TimelineLayout layout = view.Layout();
  const LaneRow* row = layout.FindThread(1600);
  ASSERT_NE(row, nullptr);
  int x = static_cast<int>(AxisOf(view.state(), layout).XOf((wait.from_ns + wait.to_ns) / 2));
  EXPECT_EQ(image.pixelColor(x, row->bottom() - 4).name(), palette::WakeWait().name());
}

TEST(ThreadLane, PinOptionAndAPingPongFindingPinThreads) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1400, 900);
  GuiOptions options;
  options.pins = {"irq/355"};
  window.OpenTrace(Data("scenarios/irq_threads_bouncing.dat"), options);
  window.WaitForLoad();
  ASSERT_NE(window.trace(), nullptr);
  EXPECT_EQ(window.timeline()->PinnedPids(), std::vector<int32_t>{182});
  // A ping-pong finding naming both threads pins them (this scenario's own report has none:
  // its trace lacks the softirq events, so the finding is made here as the analysis writes it).
  Finding pingpong;
  pingpong.rule = "irq-thread-pingpong";
  pingpong.cpu = 0;
  pingpong.pid = 181;
  pingpong.other_pids = {182};
  FindingFocus focus = FocusOf(pingpong, {0, 1});
  EXPECT_EQ(focus.pins, (std::vector<int32_t>{181, 182}));
  Finding latency = pingpong;
  latency.rule = "softirq-latency";
  EXPECT_TRUE(FocusOf(latency, {0, 1}).pins.empty());
  window.ShowFinding(pingpong);
  const std::vector<int32_t>& pins = window.timeline()->PinnedPids();
  EXPECT_NE(std::find(pins.begin(), pins.end(), 181), pins.end());
  EXPECT_NE(std::find(pins.begin(), pins.end(), 182), pins.end());
  // From the event list's menu: the same signal pins a task.
  emit window.events()->PinRequested(1500);
  EXPECT_NE(std::find(window.timeline()->PinnedPids().begin(),
                      window.timeline()->PinnedPids().end(), 1500),
            window.timeline()->PinnedPids().end());
}

// The findings of a range are the core's: the same as `napiscope report --from --to`.
TEST(RangeAnalysis, IsTheReportOfThatWindow) {
  auto trace = testing::LoadTestTrace("scenarios/rt_wake_latency.dat");
  ASSERT_NE(trace, nullptr);
  // Up to just before the first finding that has a time: that one (at least) is left out.
  TimestampNs first_finding = trace->timeline.end_ns();
  for (const Finding& finding : trace->report.findings) {
    if (finding.start_ns > 0) first_finding = std::min(first_finding, finding.start_ns);
  }
  TimestampNs from = trace->timeline.start_ns();
  for (TimestampNs to : {first_finding - 1, trace->timeline.end_ns()}) {
    Report mine = AnalyseRange(*trace, from, to);
    AnalysisOptions options;
    options.window.from_ns = from;
    options.window.to_ns = to;
    Report cli;
    ASSERT_TRUE(AnalyzeTrace(napiscope::testing::TestData("scenarios/rt_wake_latency.dat"),
                             options, &cli)
                    .ok());
    ASSERT_EQ(mine.findings.size(), cli.findings.size()) << to;
    for (size_t i = 0; i < mine.findings.size(); ++i) {
      EXPECT_EQ(mine.findings[i].rule, cli.findings[i].rule);
      EXPECT_EQ(mine.findings[i].summary, cli.findings[i].summary);
    }
    if (to < trace->timeline.end_ns()) {
      EXPECT_LT(mine.findings.size(), trace->report.findings.size());
    } else {
      EXPECT_EQ(mine.findings.size(), trace->report.findings.size());
    }
  }
}

TEST(RangeAnalysis, TheFindingsTabSaysWhichRangeItShows) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("scenarios/rt_wake_latency.dat")));
  EXPECT_EQ(window.findings()->Scope(), "the whole trace");
  TimestampNs start = window.trace()->timeline.start_ns();
  window.timeline()->SetMarkers(start, start + 1'000'000);
  window.AnalyseSelectedRange();
  window.WaitForRangeAnalysis();
  EXPECT_TRUE(window.findings()->Scope().startsWith("A–B +0")) << window.findings()->Scope().toStdString();
  EXPECT_LE(window.ShownFindings().size(), window.trace()->report.findings.size());
  window.ShowWholeTraceFindings();
  EXPECT_EQ(window.ShownFindings().size(), window.trace()->report.findings.size());
}

TEST(Session, SavesAndRestoresTheView) {
  QTemporaryDir dir;
  QString path = dir.filePath("session.json");
  SessionState saved;
  {
    MainWindow window;
    window.SetShowErrorDialogs(false);
    window.resize(1400, 900);
    ASSERT_TRUE(window.OpenTraceAndWait(Data("scenarios/irq_threads_bouncing.dat")));
    TimestampNs start = window.trace()->timeline.start_ns();
    window.timeline()->SetRange(start + 1'000'000, start + 3'000'000);
    window.timeline()->SetMarkers(start + 1'500'000, start + 2'000'123);
    window.timeline()->Pin(181);
    window.timeline()->SetCpuVisible(1, false);
    window.SetFilter("iperf", {}, kNetRx);
    ASSERT_TRUE(window.events()->SetFilterText("cpu==0"));
    saved = window.CaptureSession();
    QString error;
    ASSERT_TRUE(window.SaveSession(path, &error)) << error.toStdString();
  }
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1400, 900);
  GuiOptions options;
  options.session = path;
  window.OpenTrace(Data("scenarios/irq_threads_bouncing.dat"), options);
  window.WaitForLoad();
  ASSERT_NE(window.trace(), nullptr);
  SessionState restored = window.CaptureSession();
  EXPECT_EQ(restored.from_ns, saved.from_ns);
  EXPECT_EQ(restored.marker_b, saved.marker_b);
  EXPECT_EQ(restored.pinned_pids, std::vector<int32_t>{181});
  EXPECT_EQ(restored.hidden_cpus, std::vector<int>{1});
  EXPECT_EQ(restored.vec_filter, static_cast<int>(kNetRx));
  EXPECT_EQ(restored.event_filter, "cpu==0");
  EXPECT_TRUE(restored == saved);
  // A broken session file is named in the error.
  QString broken = dir.filePath("broken.json");
  napiscope::testing::WriteFile(broken.toStdString(), "{\"napiscope_session\": 1, \"from\": \"x\"}");
  QString error;
  EXPECT_FALSE(window.OpenSession(broken, &error));
  EXPECT_TRUE(error.startsWith(broken)) << error.toStdString();
}

TEST(Navigation, RightDragZoomsToARangeAndZShowsAToB) {
  auto trace = testing::LoadTestTrace("scenarios/softirq_contexts.dat");
  ASSERT_NE(trace, nullptr);
  TimelineView view;
  view.resize(1400, 500);
  view.SetTrace(trace);
  TimelineLayout layout = view.Layout();
  TimeAxis axis = AxisOf(view.state(), layout);
  int y = layout.rows().front().center();
  int x0 = layout.time_left() + 300;
  int x1 = layout.time_left() + 700;
  TimestampNs t0 = axis.TimeAt(x0);
  TimestampNs t1 = axis.TimeAt(x1);
  QTest::mousePress(&view, Qt::RightButton, Qt::NoModifier, QPoint(x0, y));
  QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), view.mapToGlobal(QPointF(x1, y)),
                   Qt::NoButton, Qt::RightButton, Qt::NoModifier);
  QApplication::sendEvent(&view, &move);
  QTest::mouseRelease(&view, Qt::RightButton, Qt::NoModifier, QPoint(x1, y));
  EXPECT_NEAR(static_cast<double>(view.state().from_ns), static_cast<double>(t0), axis.NsPerPixel());
  EXPECT_NEAR(static_cast<double>(view.state().to_ns), static_cast<double>(t1), axis.NsPerPixel());
  EXPECT_FALSE(view.state().marker_a.has_value());

  view.SetMarkers(t0 + 1000, t0 + 21'000);
  QTest::keyClick(&view, Qt::Key_Z);
  EXPECT_EQ(view.state().from_ns, t0 + 1000 - 1000);
  EXPECT_EQ(view.state().to_ns, t0 + 21'000 + 1000);
}

TEST(Navigation, GoToTakesAbsoluteTimesAndOffsets) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1400, 900);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("scenarios/softirq_contexts.dat")));
  TimestampNs start = window.trace()->timeline.start_ns();
  QString error;
  ASSERT_TRUE(window.GoToTime("+50us", &error)) << error.toStdString();
  EXPECT_EQ(*window.timeline()->state().marker_a, start + 50'000);
  ASSERT_TRUE(window.GoToTime("3.000030 3.000110", &error)) << error.toStdString();
  EXPECT_EQ(window.timeline()->state().from_ns, 3'000'030'000);
  EXPECT_EQ(window.timeline()->state().to_ns, 3'000'110'000);
  EXPECT_FALSE(window.GoToTime("9999.5", &error));
  EXPECT_TRUE(error.contains("outside the trace")) << error.toStdString();
  EXPECT_FALSE(window.GoToTime("soon", &error));
  // The box's example is a time of this trace (its middle), which it then accepts.
  auto* go_to = window.findChild<QLineEdit*>("goTo");
  ASSERT_NE(go_to, nullptr);
  QString example = go_to->placeholderText().section(',', 0, 0);
  EXPECT_EQ(example,
            FormatTraceSeconds(start + (window.trace()->timeline.end_ns() - start) / 2, 1'000'000));
  EXPECT_TRUE(window.GoToTime(example, &error)) << error.toStdString();
}

}  // namespace
}  // namespace napiscope::gui
