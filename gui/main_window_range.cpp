// MainWindow: the findings of a range (the core analyses run again over markers A-B) and the
// event list following the timeline and back.
#include <QCoreApplication>
#include <QThread>
#include <algorithm>

#include "event_list.h"
#include "findings_panel.h"
#include "main_window.h"
#include "napiscope/format.h"
#include "range_analysis.h"
#include "time_text.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

QString Duration(TimestampNs ns) { return QString::fromStdString(FormatDuration(ns)); }

}  // namespace

void MainWindow::AnalyseSelectedRange() {
  if (!trace_) return;
  auto [from, to] = timeline_->SelectedRange();
  AnalyseRange(from, to);
}

void MainWindow::AnalyseRange(TimestampNs from_ns, TimestampNs to_ns) {
  if (!trace_) return;
  WaitForRangeAnalysis();  // one at a time; a range takes seconds at most
  TimestampNs origin = trace_->timeline.start_ns();
  TimestampNs resolution = std::max<TimestampNs>(1, (to_ns - from_ns) / 1000);
  const TimelineViewState& state = timeline_->state();
  bool markers = state.marker_a && state.marker_b &&
                 std::min(*state.marker_a, *state.marker_b) == from_ns &&
                 std::max(*state.marker_a, *state.marker_b) == to_ns;
  QString scope = QString("%1 %2 … %3 (%4)")
                      .arg(markers ? "A–B" : "the range", FormatOffset(from_ns - origin, resolution),
                           FormatOffset(to_ns - origin, resolution), Duration(to_ns - from_ns));
  findings_->SetBusy(scope);
  std::shared_ptr<const LoadedTrace> trace = trace_;
  range_worker_ = QThread::create([this, trace, from_ns, to_ns, scope] {
    auto report = std::make_shared<Report>(::napiscope::gui::AnalyseRange(*trace, from_ns, to_ns));
    QMetaObject::invokeMethod(
        this,
        [this, trace, report, scope] {
          if (trace != trace_) return;  // another trace was opened meanwhile
          shown_findings_ = report->findings;
          findings_->SetFindings(shown_findings_, trace_->timeline.start_ns(), scope);
        },
        Qt::QueuedConnection);
  });
  range_worker_->start();
}

void MainWindow::WaitForRangeAnalysis() {
  if (range_worker_ == nullptr) return;
  range_worker_->wait();
  delete range_worker_;
  range_worker_ = nullptr;
  QCoreApplication::sendPostedEvents(this);
}

void MainWindow::ShowWholeTraceFindings() {
  if (!trace_) return;
  WaitForRangeAnalysis();
  shown_findings_ = trace_->report.findings;
  findings_->SetFindings(shown_findings_, trace_->timeline.start_ns(), "the whole trace");
}

void MainWindow::ShowEventFromList(TimestampNs ts_ns, int cpu) {
  selecting_from_list_ = true;
  const TimelineViewState& state = timeline_->state();
  if (ts_ns < state.from_ns || ts_ns > state.to_ns) {
    TimestampNs span = state.to_ns - state.from_ns;
    timeline_->SetRange(ts_ns - span / 2, ts_ns + span / 2);
  }
  timeline_->SetMarkers(ts_ns, state.marker_b);
  if (!timeline_->CpuVisible(cpu)) timeline_->SetCpuVisible(cpu, true);
  timeline_->ScrollToCpu(cpu);
  selecting_from_list_ = false;
}

void MainWindow::ListFollowsTimeline() {
  if (!trace_ || selecting_from_list_) return;
  const TimelineViewState& state = timeline_->state();
  // Marker A in view keeps its row; otherwise the list starts where the view starts.
  if (state.marker_a && *state.marker_a >= state.from_ns && *state.marker_a <= state.to_ns) return;
  events_->ScrollToTime(state.from_ns);
}

}  // namespace napiscope::gui
