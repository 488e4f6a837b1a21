// gui_window_bench: the whole window on a large trace, as a user opens it. Prints the time to
// the first full frame (load, analyses, event index, then one paint of the window; the charts
// are computed after it on a worker and fill in later: that time is printed too), the CPU
// time of a frame of the timeline and the visible event list at every zoom, and the process's
// memory per event. Not a test: numbers depend on the machine. Make traces with
//   napiscope-tracegen --synthetic 20000000 --cpus 64 -o /tmp/s64.dat
// and run
//   QT_QPA_PLATFORM=offscreen napiscope_gui_window_bench /tmp/s64.dat [WIDTH HEIGHT]
// Compare the first frame with `time napiscope report /tmp/s64.dat > /dev/null`.
// To profile one zoom, NAPISCOPE_BENCH_ZOOM=K draws only the K-th zoom (0: the whole trace,
// 1: a tenth, ...) and NAPISCOPE_BENCH_FRAMES=N draws N frames at each zoom instead of 10.
#include <QApplication>
#include <QHeaderView>
#include <QKeyEvent>
#include <QTabWidget>
#include <QTableView>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "charts_panel.h"
#include "event_list.h"
#include "main_window.h"
#include "timeline_view.h"

namespace {

using Clock = std::chrono::steady_clock;
using napiscope::TimestampNs;

double ThreadCpuMillis() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// VmRSS or VmHWM of this process in bytes.
double ProcessBytes(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::string(key).size())) * 1024.0;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE [WIDTH HEIGHT]\n", argv[0]);
    return 1;
  }
  int width = argc > 3 ? std::atoi(argv[2]) : 1920;
  int height = argc > 3 ? std::atoi(argv[3]) : 1080;
  double rss_before = ProcessBytes("VmRSS:");
  Clock::time_point start = Clock::now();
  napiscope::gui::MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(width, height);
  window.show();
  // The event list's tab in front: its visible rows are part of every frame.
  for (QWidget* up = window.events()->parentWidget(); up != nullptr; up = up->parentWidget()) {
    if (auto* tabs = qobject_cast<QTabWidget*>(up)) {
      tabs->setCurrentWidget(window.events());
      break;
    }
  }
  window.OpenTrace(argv[1]);
  window.WaitForLoad();
  if (window.trace() == nullptr || !window.LastError().isEmpty()) {
    std::fprintf(stderr, "%s\n", window.LastError().toStdString().c_str());
    return 1;
  }
  QApplication::processEvents();
  QImage first = window.grab().toImage();
  double first_frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  // The charts are computed on a worker after the first frame and fill in when ready.
  window.charts()->WaitForRefresh();
  QApplication::processEvents();
  window.grab();
  double charts_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const napiscope::gui::LoadedTrace& trace = *window.trace();
  auto events = static_cast<double>(trace.timeline.events());
  double rss = ProcessBytes("VmRSS:");
  double peak = ProcessBytes("VmHWM:");
  std::printf("trace %s: %.0f events, %d CPUs\n", argv[1], events, trace.timeline.cpus());
  std::printf("first full frame %.0f ms (%dx%d); charts filled in at %.0f ms\n", first_frame_ms,
              width, height, charts_ms);
  std::printf("RSS %.1f MB = %.1f bytes/event (%.1f without the empty process's %.0f MB); "
              "peak %.1f bytes/event\n",
              rss / 1e6, rss / events, (rss - rss_before) / events, rss_before / 1e6,
              peak / events);
  std::printf("model: timeline %.2f + event index %.2f bytes/event\n",
              static_cast<double>(trace.timeline.BytesUsed()) / events,
              static_cast<double>(trace.events.BytesUsed()) / events);

  // Frames: the timeline and the visible rows of the event list (the list follows the view).
  napiscope::gui::TimelineView* timeline = window.timeline();
  QTableView* table = window.events()->table();
  TimestampNs span = trace.timeline.end_ns() - trace.timeline.start_ns();
  // Every frame drawn anew, as after a zoom or a pan (the view keeps no frame between them).
  timeline->SetFrameCacheEnabled(false);
  int frames = std::max(2, qEnvironmentVariableIntValue("NAPISCOPE_BENCH_FRAMES"));
  if (qEnvironmentVariableIsEmpty("NAPISCOPE_BENCH_FRAMES")) frames = 10;
  int only_zoom = qEnvironmentVariableIsEmpty("NAPISCOPE_BENCH_ZOOM")
                      ? -1
                      : qEnvironmentVariableIntValue("NAPISCOPE_BENCH_ZOOM");
  std::printf("frame CPU time (timeline + event list), median and max of %d positions:\n", frames);
  int zoom_index = 0;
  for (TimestampNs zoom = span; zoom >= 1000; zoom /= 10, ++zoom_index) {
    if (only_zoom >= 0 && zoom_index != only_zoom) continue;
    std::vector<double> cpu_ms;
    std::vector<double> timeline_ms;
    for (int f = 0; f < frames; ++f) {
      TimestampNs from = trace.timeline.start_ns() + (span - zoom) * f / (frames - 1);
      double cpu_start = ThreadCpuMillis();
      timeline->SetRange(from, from + zoom);
      window.events()->ScrollToTime(from);
      timeline->grab();
      timeline_ms.push_back(ThreadCpuMillis() - cpu_start);
      table->viewport()->grab();
      cpu_ms.push_back(ThreadCpuMillis() - cpu_start);
    }
    std::sort(cpu_ms.begin(), cpu_ms.end());
    std::sort(timeline_ms.begin(), timeline_ms.end());
    std::printf("  span %14.6f ms: median %6.2f ms, max %6.2f ms (timeline alone: median %6.2f)\n",
                static_cast<double>(zoom) / 1e6, cpu_ms[cpu_ms.size() / 2], cpu_ms.back(),
                timeline_ms[timeline_ms.size() / 2]);
  }
  // Only the markers move (clicks) over the whole trace: the view repaints from its kept frame.
  timeline->SetFrameCacheEnabled(true);
  timeline->SetRange(trace.timeline.start_ns(), trace.timeline.end_ns());
  timeline->grab();
  std::vector<double> cpu_ms;
  for (int f = 0; f < 10; ++f) {
    timeline->SetMarkers(trace.timeline.start_ns() + span * f / 10, std::nullopt);
    double cpu_start = ThreadCpuMillis();
    timeline->grab();
    table->viewport()->grab();
    cpu_ms.push_back(ThreadCpuMillis() - cpu_start);
  }
  std::sort(cpu_ms.begin(), cpu_ms.end());
  std::printf("  whole trace, a marker moved (kept frame): median %6.2f ms, max %6.2f ms\n",
              cpu_ms[cpu_ms.size() / 2], cpu_ms.back());
  // The event list's very end: End selects the last event through the table's window of rows.
  napiscope::gui::EventListPanel* list = window.events();
  table->setFocus();
  QKeyEvent end_key(QEvent::KeyPress, Qt::Key_End, Qt::NoModifier);
  QApplication::sendEvent(table, &end_key);
  std::optional<napiscope::Event> last = list->SelectedEvent();
  bool last_ok = last && last->ts_ns == trace.events.TimestampAt(trace.events.size() - 1);
  std::printf("event list: %d rows, the table holds %d (%d header sections); End selects row %d "
              "(%s)\n",
              list->model()->rowCount(), table->model()->rowCount(),
              table->verticalHeader()->count(), list->CurrentRow(),
              last_ok ? "the last event" : "NOT the last event");
  if (!last_ok) return 1;
  return first.isNull() ? 1 : 0;
}
