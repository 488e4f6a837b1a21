#include "main_window.h"
#include "time_text.h"

#include <QApplication>
#include <QFileInfo>
#include <QImage>
#include <QInputDialog>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTimer>

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "charts_panel.h"
#include "findings_panel.h"
#include "gui_test_support.h"
#include "screenshot.h"
#include "support/test_support.h"
#include "timeline_view.h"
#include "tracegen/scenario.h"

namespace napiscope::gui {
namespace {

using napiscope::testing::RunCommand;
using napiscope::testing::TestData;

QString Data(const std::string& relative) { return QString::fromStdString(TestData(relative)); }

TEST(MainWindow, OpensARealTraceOffTheGuiThread) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("real/veth-threaded-napi.dat")));
  ASSERT_NE(window.trace(), nullptr);
  const Timeline& timeline = window.trace()->timeline;
  EXPECT_EQ(timeline.cpus(), 2);
  EXPECT_EQ(timeline.events(), 422794);
  EXPECT_EQ(window.timeline()->state().from_ns, timeline.start_ns());
  EXPECT_EQ(window.timeline()->state().to_ns, timeline.end_ns());
  EXPECT_TRUE(window.SummaryText().contains("softirq raise-to-entry latency"));
  EXPECT_EQ(window.RecentFiles().value(0),
            QFileInfo(Data("real/veth-threaded-napi.dat")).absoluteFilePath());
  // The model's memory, and per event for a trace of this many events.
  EXPECT_TRUE(window.StatusText().contains(QRegularExpression(
      R"( · 422794 events · 2 CPUs · .* · [0-9.]+ MiB in memory \([0-9.]+ bytes/event\)$)")))
      << window.StatusText().toStdString();
}

// For a few events the bytes per event said nothing (26227.2 for a 5-event trace): the status
// gives the memory alone.
TEST(MainWindow, TheStatusOfATinyTraceGivesItsMemoryAlone) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("text/trace-cmd-stacktrace.txt")));
  EXPECT_TRUE(window.StatusText().contains(
      QRegularExpression(R"( · 5 events · .* · [0-9.]+ KiB in memory$)")))
      << window.StatusText().toStdString();
}

TEST(MainWindow, OpensCompressedFtraceText) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("text/kernel-6.18-irq-info.txt.gz")))
      << window.LastError().toStdString();
  const Timeline& timeline = window.trace()->timeline;
  EXPECT_GT(timeline.events(), 0);
  size_t intervals = 0;
  for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
    intervals += timeline.lane(cpu, Lane::kTask).size() + timeline.lane(cpu, Lane::kSoftirq).size();
  }
  EXPECT_GT(intervals, 0u);
}

// A trace.dat with an empty top buffer and two instances: "net" of 3 events, "sched" of 1.
absl::Status WriteNetAndSchedInstances(const std::string& path) {
  tracegen::Scenario net(2), sched(2);
  for (int i = 0; i < 3; ++i) net.SoftirqRaise(1, 10'000'000'000 + i * 1'000, 3);
  sched.SoftirqRaise(0, 10'000'000'000, 3);
  return tracegen::WriteTraceDatBuffers(path, 2, nullptr, {{"net", &net}, {"sched", &sched}});
}

// A trace.dat whose events are in two buffer instances: the CLI's error without --buffer, the
// named instance's events with it.
TEST(MainWindow, ABufferInstanceIsReadWhenNamed) {
  QTemporaryDir dir;
  std::string path = dir.filePath("instances.dat").toStdString();
  ASSERT_TRUE(WriteNetAndSchedInstances(path).ok());
  MainWindow window;
  window.SetShowErrorDialogs(false);
  EXPECT_FALSE(window.OpenTraceAndWait(QString::fromStdString(path)));
  EXPECT_TRUE(window.LastError().endsWith("choose one with --buffer NAME"))
      << window.LastError().toStdString();
  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(path), "net"));
  EXPECT_EQ(window.trace()->context.meta.buffer, "net");
  EXPECT_EQ(window.trace()->report.trace.events, 3);
}

// The texts of File > Buffer's entries, the checked one in brackets.
QStringList BufferMenu(const MainWindow& window) {
  QStringList entries;
  const QMenu* menu = window.findChild<QMenu*>("bufferMenu");
  if (menu == nullptr || !menu->isEnabled()) return entries;
  for (const QAction* action : menu->actions()) {
    entries.append(action->isChecked() ? "[" + action->text() + "]" : action->text());
  }
  return entries;
}

// Triggers File > Buffer's entry `text` and waits for the load it starts.
void ChooseBuffer(MainWindow& window, const QString& text) {
  for (QAction* action : window.findChild<QMenu*>("bufferMenu")->actions()) {
    if (action->text() == text) action->trigger();
  }
  window.WaitForLoad();
}

// Where the buffer to read is not clear, File > Buffer offers the file's instances, and once
// one is read, the others and the top buffer; a user without the command line can choose.
TEST(MainWindow, FileBufferOffersTheInstancesOfTheTrace) {
  QTemporaryDir dir;
  std::string path = dir.filePath("instances.dat").toStdString();
  tracegen::Scenario top(2), net(2), sched(2);
  top.SoftirqRaise(0, 10'000'000'000, 3);
  for (int i = 0; i < 3; ++i) net.SoftirqRaise(1, 10'000'000'000 + i * 1'000, 3);
  sched.SoftirqRaise(0, 10'000'000'000, 3);
  std::string empty_top = dir.filePath("empty-top.dat").toStdString();
  ASSERT_TRUE(
      tracegen::WriteTraceDatBuffers(empty_top, 2, nullptr, {{"sched", &sched}, {"net", &net}})
          .ok());
  ASSERT_TRUE(
      tracegen::WriteTraceDatBuffers(path, 2, &top, {{"net", &net}, {"sched", &sched}}).ok());
  MainWindow window;
  window.SetShowErrorDialogs(false);
  EXPECT_THAT(BufferMenu(window), ::testing::IsEmpty());
  EXPECT_FALSE(window.OpenTraceAndWait(QString::fromStdString(empty_top)));
  EXPECT_TRUE(window.StatusText().endsWith("do: choose one with --buffer NAME (File > Buffer)"))
      << window.StatusText().toStdString();
  EXPECT_EQ(BufferMenu(window), QStringList({"sched", "net"}));
  ChooseBuffer(window, "net");
  ASSERT_NE(window.trace(), nullptr);
  EXPECT_EQ(window.trace()->path, empty_top);
  EXPECT_EQ(window.trace()->report.trace.events, 3);
  EXPECT_EQ(BufferMenu(window), QStringList({"Top buffer", "[net]", "sched"}));

  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(path)));
  EXPECT_EQ(window.trace()->report.trace.events, 1);
  EXPECT_EQ(BufferMenu(window), QStringList({"[Top buffer]", "net", "sched"}));
  ChooseBuffer(window, "net");
  EXPECT_EQ(window.trace()->context.meta.buffer, "net");
  EXPECT_EQ(window.trace()->report.trace.events, 3);
  ChooseBuffer(window, "Top buffer");
  EXPECT_EQ(window.trace()->context.meta.buffer, "");
  EXPECT_EQ(BufferMenu(window), QStringList({"[Top buffer]", "net", "sched"}));

  // A trace without instances has nothing to choose.
  ASSERT_TRUE(window.OpenTraceAndWait(Data("scenarios/softirq_contexts.dat")));
  EXPECT_THAT(BufferMenu(window), ::testing::IsEmpty());
}

// With dialogs on (an interactive window), the choice is asked at once.
TEST(MainWindow, AnUnclearBufferIsAskedInADialog) {
  QTemporaryDir dir;
  std::string path = dir.filePath("instances.dat").toStdString();
  ASSERT_TRUE(WriteNetAndSchedInstances(path).ok());
  MainWindow window;
  QStringList offered;
  QString asked;
  QTimer answer;
  QObject::connect(&answer, &QTimer::timeout, [&] {
    QWidget* modal = QApplication::activeModalWidget();
    if (modal == nullptr) return;
    answer.stop();
    auto* dialog = qobject_cast<QInputDialog*>(modal);
    if (dialog == nullptr) {  // not the question: the test fails, without waiting on it
      asked = modal->metaObject()->className();
      modal->close();
      return;
    }
    offered = dialog->comboBoxItems();
    asked = dialog->labelText();
    dialog->setTextValue("sched");
    dialog->accept();
  });
  answer.start(10);
  ASSERT_TRUE(window.OpenTraceAndWait(QString::fromStdString(path)))
      << window.LastError().toStdString();
  EXPECT_EQ(offered, QStringList({"net", "sched"}));
  EXPECT_TRUE(asked.endsWith("choose one with --buffer NAME\n\nWhich buffer instance to read?"))
      << asked.toStdString();
  EXPECT_EQ(window.trace()->context.meta.buffer, "sched");
  EXPECT_EQ(window.trace()->report.trace.events, 1);
}

TEST(MainWindow, ABrokenFileShowsTheClisMessage) {
  QTemporaryDir dir;
  QString broken = dir.filePath("broken.dat");
  napiscope::testing::WriteFile(broken.toStdString(), "this is not a trace\n\x01\x02");
  MainWindow window;
  window.SetShowErrorDialogs(false);
  EXPECT_FALSE(window.OpenTraceAndWait(broken));
  napiscope::testing::CommandResult cli =
      RunCommand(napiscope::testing::CliPath() + " info '" + broken.toStdString() + "'");
  ASSERT_EQ(cli.exit_code, 1);
  std::string message = cli.err.substr(0, cli.err.find('\n'));
  ASSERT_EQ(message.rfind("napiscope: ", 0), 0u) << message;
  EXPECT_EQ(window.LastError().toStdString(), message.substr(std::string("napiscope: ").size()));
  EXPECT_TRUE(window.LastError().startsWith(broken)) << window.LastError().toStdString();
  EXPECT_EQ(window.trace(), nullptr);
}

TEST(MainWindow, CancelStopsTheLoad) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.OpenTrace(Data("real/veth-softirq-napi.dat"));
  // As the Cancel button does; the loader checks every 64 Ki records, and opening the file alone
  // takes longer than this click.
  for (QPushButton* button : window.findChildren<QPushButton*>()) {
    if (button->text() == "Cancel") button->click();
  }
  window.WaitForLoad();
  EXPECT_EQ(window.trace(), nullptr);
  EXPECT_TRUE(window.LastError().isEmpty());
  EXPECT_TRUE(window.StatusText().startsWith("Cancelled")) << window.StatusText().toStdString();
}

TEST(MainWindow, SelectingAFindingZoomsToItsWindowAndHighlightsItsCpu) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1400, 900);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("scenarios/ksoftirqd_blocked.dat")));
  const std::vector<Finding>& findings = window.trace()->report.findings;
  ASSERT_EQ(window.findings()->count(), static_cast<int>(findings.size()));
  ASSERT_GE(findings.size(), 2u);
  const Finding& timer = findings[0];
  ASSERT_EQ(timer.cpu, 0);
  ASSERT_GT(timer.end_ns, timer.start_ns);
  window.findings()->Select(0);
  const TimelineViewState& state = window.timeline()->state();
  EXPECT_LE(state.from_ns, timer.start_ns);
  EXPECT_GE(state.to_ns, timer.end_ns);
  // The window with a fifth of its length on each side (at least 5 us), kept inside the trace:
  // here that is longer than the whole 4.01 ms trace, so the view is the whole trace.
  TimestampNs margin = std::max<TimestampNs>((timer.end_ns - timer.start_ns) / 5, 5000);
  const Timeline& timeline = window.trace()->timeline;
  EXPECT_GT(timer.end_ns - timer.start_ns + 2 * margin, timeline.end_ns() - timeline.start_ns());
  EXPECT_EQ(state.from_ns, timeline.start_ns());
  EXPECT_EQ(state.to_ns, timeline.end_ns());
  window.findings()->Select(1);
  const Finding& sched = findings[1];
  EXPECT_LE(window.timeline()->state().from_ns, sched.start_ns);
  EXPECT_GE(window.timeline()->state().to_ns, sched.end_ns);
  window.findings()->Select(0);
  EXPECT_EQ(state.highlight_cpus, std::vector<int>{0});
  ASSERT_TRUE(state.highlight_window);
  EXPECT_EQ(state.highlight_window->first, timer.start_ns);
  // The vector the finding names is emphasised, other vectors are not.
  const std::vector<TimelineItem>& items = window.trace()->timeline.items();
  ASSERT_GE(timer.vec, 0);
  uint32_t vec = static_cast<uint32_t>(timer.vec);
  ASSERT_EQ(state.emphasis.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    bool named = (items[i].lane == Lane::kSoftirq || items[i].lane == Lane::kSoftirqWait) &&
                 items[i].vec == vec;
    EXPECT_EQ(state.emphasis[i] != 0, named) << i;
  }
  // The charts follow: the selected range is the new visible range.
  EXPECT_EQ(window.timeline()->SelectedRange(), std::make_pair(state.from_ns, state.to_ns));
}

TEST(MainWindow, TaskFilterMatchesCommOrPid) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("scenarios/softirq_contexts.dat")));
  window.SetFilter("ksoftirqd", {}, -1);
  const std::vector<uint8_t>& mask = window.timeline()->state().item_mask.shown;
  const std::vector<TimelineItem>& items = window.trace()->timeline.items();
  ASSERT_EQ(mask.size(), items.size());
  int shown_tasks = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].lane != Lane::kTask) continue;
    EXPECT_EQ(mask[i] != 0, items[i].task_class == TaskClass::kKsoftirqd) << i;
    shown_tasks += mask[i];
  }
  EXPECT_GT(shown_tasks, 0);
  window.SetFilter("", {}, -1);
  EXPECT_TRUE(window.timeline()->state().item_mask.empty());
}

// A NIC queue's IRQ 236 and the local timer's vector 236: two entries of the IRQ filter, each
// showing its own hard IRQs only (the filter listed the number once and showed both).
TEST(MainWindow, IrqFilterTellsADeviceIrqFromAnX86VectorOfItsNumber) {
  QTemporaryDir dir;
  QString path = dir.filePath("irq236.txt");
  napiscope::testing::WriteFile(
      path.toStdString(),
      "# tracer: nop\n"
      "  iperf3-100 [000] d...   100.000050: sched_switch: prev_comm=x prev_pid=5 prev_prio=120 "
      "prev_state=S ==> next_comm=iperf3 next_pid=100 next_prio=120\n"
      "  iperf3-100 [000] d.h.   100.000100: irq_handler_entry: irq=236 name=eth1-rx-3\n"
      "  iperf3-100 [000] d.h.   100.000110: irq_handler_exit: irq=236 ret=handled\n"
      "  <idle>-0   [001] d.h.   100.000200: local_timer_entry: vector=236\n"
      "  <idle>-0   [001] d.h.   100.000210: local_timer_exit: vector=236\n");
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(path));
  const Timeline& timeline = window.trace()->timeline;
  for (bool vector : {false, true}) {
    window.SetFilter("", {236, vector}, -1);
    const std::vector<uint8_t>& mask = window.timeline()->state().item_mask.shown;
    ASSERT_EQ(mask.size(), timeline.items().size());
    int shown = 0;
    for (size_t i = 0; i < mask.size(); ++i) {
      const TimelineItem& item = timeline.items()[i];
      if (item.lane != Lane::kHardirq) continue;
      EXPECT_EQ(mask[i] != 0, timeline.handlers()[item.key].irq.x86_vector == vector) << i;
      shown += mask[i];
    }
    EXPECT_EQ(shown, 1) << vector;
  }
  // The session keeps which of the two was chosen.
  SessionState saved = window.CaptureSession();
  EXPECT_EQ(saved.irq_filter, (InterruptId{236, true}));
  QString session = dir.filePath("session.json");
  QString error;
  ASSERT_TRUE(window.SaveSession(session, &error)) << error.toStdString();
  MainWindow reopened;
  reopened.SetShowErrorDialogs(false);
  GuiOptions options;
  options.session = session;
  reopened.OpenTrace(path, options);
  reopened.WaitForLoad();
  ASSERT_NE(reopened.trace(), nullptr);
  EXPECT_TRUE(reopened.CaptureSession() == saved);
}

// Saving the session under the trace's own name (one slip in the save dialog, which asks
// only whether to overwrite) replaced the trace with a page of JSON: it is refused, the trace
// kept, and another name works.
TEST(MainWindow, ASessionIsNeverSavedOverItsTrace) {
  QTemporaryDir dir;
  QString path = dir.filePath("idle.dat");
  std::string original = napiscope::testing::ReadFile(TestData("real/idle.dat"));
  napiscope::testing::WriteFile(path.toStdString(), original);
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(path));
  QString error;
  EXPECT_FALSE(window.SaveSession(path, &error));
  EXPECT_EQ(error, path + ": is the trace itself; save the session under another name");
  EXPECT_TRUE(napiscope::testing::ReadFile(path.toStdString()) == original);
  EXPECT_TRUE(window.SaveSession(dir.filePath("idle.json"), &error)) << error.toStdString();
}

TEST(Screenshot, RendersTheRequestedSizeAndRange) {
  QTemporaryDir dir;
  QString out = dir.filePath("shot.png");
  std::string command =
      absl::StrCat(NAPISCOPE_GUI, " '", TestData("real/idle.dat"), "' --screenshot '",
                   out.toStdString(), "' --size 900x600 --range +0ms +250ms");
  napiscope::testing::CommandResult result = RunCommand("QT_QPA_PLATFORM= " + command);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  QImage image(out);
  EXPECT_EQ(image.size(), QSize(900, 600));
}

TEST(Screenshot, AMissingFileExitsOneWithTheMessage) {
  napiscope::testing::CommandResult result =
      RunCommand(absl::StrCat(NAPISCOPE_GUI, " /nonexistent.dat --screenshot /tmp/never.png"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("napiscope-gui: /nonexistent.dat: No such file or directory"),
            std::string::npos)
      << result.err;
}

TEST(Screenshot, RangeTakesOffsetsAndAbsoluteTimes) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  ASSERT_TRUE(window.OpenTraceAndWait(Data("real/idle.dat")));
  GuiOptions options;
  options.size = QSize(800, 500);
  options.range = std::make_pair(QString("+100ms"), QString("+0.2s"));
  QImage image;
  QString error;
  ASSERT_TRUE(RenderWindow(window, options, &image, &error)) << error.toStdString();
  TimestampNs start = window.trace()->timeline.start_ns();
  EXPECT_EQ(window.timeline()->state().from_ns, start + 100'000'000);
  EXPECT_EQ(window.timeline()->state().to_ns, start + 200'000'000);
  // Absolute trace seconds, as `napiscope report --from` takes them.
  options.range = std::make_pair(FormatTraceSeconds(start + 5'000'000, 1),
                                 FormatTraceSeconds(start + 7'000'000, 1));
  ASSERT_TRUE(RenderWindow(window, options, &image, &error)) << error.toStdString();
  EXPECT_EQ(window.timeline()->state().from_ns, start + 5'000'000);
  EXPECT_EQ(window.timeline()->state().to_ns, start + 7'000'000);
  options.range = std::make_pair(QString("+5ms"), QString("+1ms"));
  EXPECT_FALSE(RenderWindow(window, options, &image, &error));
  EXPECT_TRUE(error.contains("must be after")) << error.toStdString();
}

// The CLI must work without a display: it does not link Qt at all.
TEST(Cli, DoesNotDependOnQt) {
  napiscope::testing::CommandResult ldd = RunCommand("ldd " + napiscope::testing::CliPath());
  ASSERT_EQ(ldd.exit_code, 0);
  EXPECT_EQ(ldd.out.find("Qt"), std::string::npos) << ldd.out;
}

}  // namespace
}  // namespace napiscope::gui
