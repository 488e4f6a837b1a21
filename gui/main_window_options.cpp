// MainWindow: what the command line and sessions set on a loaded trace (range, CPUs, pins,
// markers, filters), the go-to-time box, and File > Save / Open session.
#include <algorithm>
#include <vector>

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>

#include "event_list.h"
#include "main_window.h"
#include "session.h"
#include "thread_lanes.h"
#include "time_text.h"
#include "timeline_view.h"

namespace napiscope::gui {

bool MainWindow::ApplyViewOptions(const GuiOptions& options, QString* error) {
  if (!trace_) {
    *error = "no trace loaded";
    return false;
  }
  bool ok = true;
  if (!options.session.isEmpty()) {
    SessionState session;
    if (!ReadSessionFile(options.session, &session, error)) {
      ok = false;
    } else {
      RestoreSession(session);
    }
  }
  if (options.cpus) {
    std::vector<int> shown;
    for (int cpu : *options.cpus) {
      if (cpu < trace_->timeline.cpus()) shown.push_back(cpu);
    }
    if (shown.empty()) {
      *error = QString("--cpus: the trace has CPUs 0-%1 only").arg(trace_->timeline.cpus() - 1);
      ok = false;
    } else {
      timeline_->ShowOnlyCpus(shown);
      FitTimelineHeight();
    }
  }
  for (const QString& spec : options.pins) {
    std::vector<int32_t> pids = FindTasks(*trace_, spec);
    if (pids.empty()) {
      *error = QString("--pin: no task is called %1* or has pid %1").arg(spec);
      ok = false;
    }
    for (int32_t pid : pids) timeline_->Pin(pid);
  }
  if (options.range) {
    TimestampNs from = 0;
    TimestampNs to = 0;
    TimestampNs start = trace_->timeline.start_ns();
    QString message;
    if (!ParseTraceTime(options.range->first, start, &from, &message) ||
        !ParseTraceTime(options.range->second, start, &to, &message)) {
      *error = "--range: " + message;
      ok = false;
    } else if (to <= from) {
      *error = QString("--range: TO (%1) must be after FROM (%2)")
                   .arg(options.range->second, options.range->first);
      ok = false;
    } else if (to <= start || from >= trace_->timeline.end_ns()) {
      *error = QString("--range: %1 %2 is outside the trace (%3 to %4)")
                   .arg(options.range->first, options.range->second,
                        FormatTraceSeconds(start, 1000),
                        FormatTraceSeconds(trace_->timeline.end_ns(), 1000));
      ok = false;
    } else {
      timeline_->SetRange(from, to);
    }
  }
  return ok;
}

SessionState MainWindow::CaptureSession() const {
  SessionState session;
  if (!trace_) return session;
  const TimelineViewState& state = timeline_->state();
  session.trace_path = QFileInfo(QString::fromStdString(trace_->path)).absoluteFilePath();
  session.from_ns = state.from_ns;
  session.to_ns = state.to_ns;
  session.marker_a = state.marker_a;
  session.marker_b = state.marker_b;
  session.pinned_pids = state.pinned_pids;
  for (int cpu = 0; cpu < trace_->timeline.cpus(); ++cpu) {
    if (!timeline_->CpuVisible(cpu)) session.hidden_cpus.push_back(cpu);
    if (timeline_->CpuExpanded(cpu)) session.expanded_cpus.push_back(cpu);
  }
  session.task_filter = task_filter_->text();
  session.irq_filter = SelectedInterrupt();
  session.vec_filter = vector_filter_->currentData().toInt();
  session.event_filter = events_->FilterText();
  session.scroll_y = state.scroll_y;
  return session;
}

void MainWindow::RestoreSession(const SessionState& session) {
  if (!trace_) return;
  // A mark per CPU, not a search of the list per CPU: a trace can have 65536 CPUs, nearly all
  // hidden.
  const int cpus = trace_->timeline.cpus();
  std::vector<bool> hidden(static_cast<size_t>(std::max(cpus, 0)), false);
  for (int cpu : session.hidden_cpus) {
    if (cpu >= 0 && cpu < cpus) hidden[static_cast<size_t>(cpu)] = true;
  }
  std::vector<int> shown;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (!hidden[static_cast<size_t>(cpu)]) shown.push_back(cpu);
  }
  timeline_->ShowOnlyCpus(shown);
  timeline_->SetAllExpanded(false);
  for (int cpu : session.expanded_cpus) timeline_->SetCpuExpanded(cpu, true);
  for (int32_t pid : std::vector<int32_t>(timeline_->PinnedPids())) timeline_->Unpin(pid);
  for (int32_t pid : session.pinned_pids) timeline_->Pin(pid);
  SetFilter(session.task_filter, session.irq_filter, session.vec_filter);
  events_->SetFilterText(session.event_filter);
  timeline_->SetRange(session.from_ns, session.to_ns);
  timeline_->SetMarkers(session.marker_a, session.marker_b);
  timeline_->SetScroll(session.scroll_y);
}

bool MainWindow::SaveSession(const QString& path, QString* error) const {
  if (!trace_) {
    *error = "no trace loaded";
    return false;
  }
  return WriteSessionFile(path, CaptureSession(), error);
}

bool MainWindow::OpenSession(const QString& path, QString* error) {
  SessionState session;
  if (!ReadSessionFile(path, &session, error)) return false;
  GuiOptions options;
  options.session = path;
  if (!trace_ || QFileInfo(QString::fromStdString(trace_->path)).absoluteFilePath() !=
                     session.trace_path) {
    OpenTrace(session.trace_path, options);  // restored when the trace has loaded
    return true;
  }
  RestoreSession(session);
  return true;
}

void MainWindow::ChooseAndSaveSession() {
  QString path = SessionPathWithSuffix(QFileDialog::getSaveFileName(
      this, "Save session", QString(), "napiscope sessions (*.json);;All files (*)"));
  QString error;
  if (!path.isEmpty() && !SaveSession(path, &error)) ShowError(error);
}

void MainWindow::ChooseAndOpenSession() {
  QString path = QFileDialog::getOpenFileName(this, "Open session", QString(),
                                              "napiscope sessions (*.json);;All files (*)");
  QString error;
  if (!path.isEmpty() && !OpenSession(path, &error)) ShowError(error);
}

bool MainWindow::GoToTime(const QString& text, QString* error) {
  if (!trace_) {
    *error = "no trace loaded";
    return false;
  }
  // "TIME" centres the view on TIME and puts marker A there; "FROM TO" shows that range.
  QStringList parts = text.split(' ', Qt::SkipEmptyParts);
  TimestampNs start = trace_->timeline.start_ns();
  if (parts.size() == 2) {
    TimestampNs from = 0;
    TimestampNs to = 0;
    if (!ParseTraceTime(parts[0], start, &from, error) ||
        !ParseTraceTime(parts[1], start, &to, error)) {
      return false;
    }
    if (to <= from) {
      *error = QString("%1 is not after %2").arg(parts[1], parts[0]);
      return false;
    }
    timeline_->SetRange(from, to);
    return true;
  }
  if (parts.size() != 1) {
    *error = "go to: one time (705.4123, +100ms) or two (FROM TO)";
    return false;
  }
  TimestampNs ts = 0;
  if (!ParseTraceTime(parts[0], start, &ts, error)) return false;
  if (ts < start || ts > trace_->timeline.end_ns()) {
    *error = QString("%1 is outside the trace (%2 to %3)")
                 .arg(parts[0], FormatTraceSeconds(start, 1000),
                      FormatTraceSeconds(trace_->timeline.end_ns(), 1000));
    return false;
  }
  const TimelineViewState& state = timeline_->state();
  TimestampNs span = state.to_ns - state.from_ns;
  // Zoomed out over most of the trace, centring alone would not move the view: zoom in to a
  // fiftieth of the trace (at least 10 us) around the time as well.
  TimestampNs trace_span = trace_->timeline.end_ns() - start;
  if (span * 2 >= trace_span) span = std::max<TimestampNs>(trace_span / 50, 10'000);
  timeline_->SetRange(ts - span / 2, ts - span / 2 + span);
  timeline_->SetMarkers(ts, state.marker_b);
  return true;
}

}  // namespace napiscope::gui
