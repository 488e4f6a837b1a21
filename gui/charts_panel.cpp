#include "charts_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFontMetrics>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <algorithm>
#include <thread>

#include "chart_builders.h"
#include "napiscope/analysis_descriptor.h"
#include "napiscope/format.h"
#include "napiscope/timeline_stats.h"
#include "qt_text.h"
#include "time_text.h"

namespace napiscope::gui {
namespace {

constexpr int kRefreshDelayMs = 150;
constexpr int kMaxThreads = 8;
// Horizontal bar charts show as many bars as have room for a whole label (a label is about
// this many pixels high); the rest become "others" (CPU time) or are left out (threads).
constexpr int kPixelsPerBar = 22;
constexpr int kChartChrome = 110;  // title, axis and margins

int BarsThatFit(const QWidget* view, int most) {
  return std::clamp((view->height() - kChartChrome) / kPixelsPerBar, 3, most);
}

// A chart's smallest size; below it the panel scrolls.
constexpr int kMinChartWidth = 360;
constexpr int kMinChartHeight = 240;
constexpr int kGridMargin = 2;
constexpr int kGridSpacing = 4;

// The width that gives each bin of a vertical bar chart room for its label turned upright (a
// line of its font and Qt's padding on both sides), beside the value axis and the legend.
int WidthForLabels(QChart* chart) {
  const QList<QAbstractAxis*> axes = chart->axes(Qt::Horizontal);
  auto* bins = axes.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(axes.first());
  if (bins == nullptr) return 0;
  QFontMetrics legend_font(chart->legend()->font());
  int legend = 0;
  for (QLegendMarker* marker : chart->legend()->markers()) {
    legend = std::max(legend, legend_font.horizontalAdvance(marker->label()));
  }
  constexpr int kValueAxis = 60, kMarkerAndMargins = 60, kLabelPadding = 14;
  return kValueAxis + legend + kMarkerAndMargins +
         bins->count() * (QFontMetrics(bins->labelsFont()).height() + kLabelPadding);
}

}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
  // Charts never shrink below the size that shows their labels whole: a small panel scrolls.
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  outer->addWidget(scroll_);
  auto* charts = new QWidget(scroll_);
  scroll_->setWidget(charts);
  grid_ = new QGridLayout(charts);
  grid_->setContentsMargins(kGridMargin, kGridMargin, kGridMargin, kGridMargin);
  grid_->setSpacing(kGridSpacing);
  for (QChartView*& view : views_) {
    view = new QChartView(new QChart, charts);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(kMinChartWidth, kMinChartHeight);
  }
  // The delay histogram carries its CPU selector above it.
  delay_box_ = new QWidget(charts);
  auto* delay_layout = new QVBoxLayout(delay_box_);
  delay_layout->setContentsMargins(0, 0, 0, 0);
  delay_layout->setSpacing(0);
  auto* selector = new QWidget(delay_box_);
  auto* selector_layout = new QHBoxLayout(selector);
  selector_layout->setContentsMargins(4, 0, 0, 0);
  selector_layout->addWidget(new QLabel("Delay histogram on", selector));
  delay_cpu_ = new QComboBox(selector);
  selector_layout->addWidget(delay_cpu_);
  selector_layout->addStretch(1);
  delay_layout->addWidget(selector);
  delay_layout->addWidget(views_[0], 1);
  Place(2);
  refresh_timer_ = new QTimer(this);
  refresh_timer_->setSingleShot(true);
  refresh_timer_->setInterval(kRefreshDelayMs);
  connect(refresh_timer_, &QTimer::timeout, this, &ChartsPanel::Refresh);
  connect(delay_cpu_, &QComboBox::currentIndexChanged, this, &ChartsPanel::Refresh);
}

void ChartsPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  Arrange();
}

// Two columns where two charts fit side by side at their smallest, else one: a narrow panel
// (a laptop's screen) then scrolls down only, each chart as wide as the panel, instead of
// scrolling both ways with the right column's legends cut off.
void ChartsPanel::Arrange() {
  int left = std::max(delay_box_->minimumSizeHint().width(), views_[2]->minimumWidth());
  int right = std::max(views_[1]->minimumWidth(), views_[3]->minimumWidth());
  int room = width() - style()->pixelMetric(QStyle::PM_ScrollBarExtent) - 2 * kGridMargin;
  int columns = left + kGridSpacing + right <= room ? 2 : 1;
  if (columns != columns_) Place(columns);
}

// The charts in `columns` columns, in reading order: delays, CPU time, activations, NAPI work.
void ChartsPanel::Place(int columns) {
  columns_ = columns;
  QWidget* cells[4] = {delay_box_, views_[1], views_[2], views_[3]};
  for (QWidget* cell : cells) grid_->removeWidget(cell);
  for (int index = 0; index < 4; ++index) {
    grid_->addWidget(cells[index], index / columns, index % columns);
  }
}

void ChartsPanel::SetTrace(std::shared_ptr<const LoadedTrace> trace) {
  trace_ = std::move(trace);
  delay_cpu_->blockSignals(true);
  delay_cpu_->clear();
  delay_cpu_->addItem("all CPUs", -1);
  for (int cpu : trace_ ? trace_->active_cpus : std::vector<int>{}) {
    delay_cpu_->addItem(QString("CPU %1").arg(cpu), cpu);
  }
  delay_cpu_->blockSignals(false);
  if (trace_) {
    from_ns_ = trace_->timeline.start_ns();
    to_ns_ = trace_->timeline.end_ns() + 1;
  }
  Refresh();
}

void ChartsPanel::SetRange(TimestampNs from_ns, TimestampNs to_ns) {
  from_ns_ = from_ns;
  to_ns_ = to_ns;
  refresh_timer_->start();
}

void ChartsPanel::SetDelayCpu(int cpu) {
  delay_cpu_->setCurrentIndex(std::max(0, delay_cpu_->findData(cpu)));
}

void ChartsPanel::Replace(int index, QChart* chart) {
  QChart* old = views_[index]->chart();
  views_[index]->setChart(chart);
  delete old;  // setChart releases, not deletes, the previous chart
  views_[index]->setMinimumWidth(std::max(kMinChartWidth, WidthForLabels(chart)));
  Arrange();
}

// What the charts are computed for.
struct ChartsPanel::Request {
  std::shared_ptr<const LoadedTrace> trace;
  TimestampNs from_ns = 0;
  TimestampNs to_ns = 0;
  int delay_cpu = -1;
};

// The core's statistics the four charts show.
struct ChartsPanel::Statistics {
  std::array<LogHistogram, kSoftirqVectorCount> delays;
  std::vector<CpuTimeBreakdown> cpus;
  std::vector<ThreadActivations> activations;
  NapiWorkHistogram napi_work;
};

namespace {

// Runs on the worker: every CPU's breakdown is independent, so every other CPU goes to a
// second thread while this one does the rest and the other charts. The CPU time chart has the
// CPUs with events only.
void ComputeStatistics(const LoadedTrace& trace, TimestampNs from_ns, TimestampNs to_ns,
                       int delay_cpu, std::array<LogHistogram, kSoftirqVectorCount>* delays,
                       std::vector<CpuTimeBreakdown>* cpus,
                       std::vector<ThreadActivations>* activations, NapiWorkHistogram* napi_work) {
  const Timeline& timeline = trace.timeline;
  const std::vector<int>& active = trace.active_cpus;
  cpus->assign(active.size(), CpuTimeBreakdown{});
  std::thread odd([&] {
    for (size_t i = 1; i < active.size(); i += 2) {
      (*cpus)[i] = BreakDownCpuTime(timeline, active[i], from_ns, to_ns);
    }
  });
  *delays = SoftirqWaitHistograms(timeline, delay_cpu, from_ns, to_ns);
  *activations = CountActivations(timeline, from_ns, to_ns);
  *napi_work = CountNapiWork(timeline, -1, from_ns, to_ns);
  for (size_t i = 0; i < active.size(); i += 2) {
    (*cpus)[i] = BreakDownCpuTime(timeline, active[i], from_ns, to_ns);
  }
  odd.join();
  // Without sched_switch no task is known to run, so nothing says a CPU was idle either: the
  // time outside its IRQs and softirqs is unknown (the chart showed it all as idle).
  if (!AnalysisRan(trace.report.trace, AnalysisId::kContexts)) {
    for (CpuTimeBreakdown& cpu : *cpus) {
      cpu.unknown_ns += cpu.idle_ns;
      cpu.idle_ns = 0;
    }
  }
}

}  // namespace

ChartsPanel::~ChartsPanel() {
  if (worker_ != nullptr) {
    worker_->wait();
    delete worker_;
  }
}

bool ChartsPanel::refresh_timer_active() const { return refresh_timer_->isActive(); }

void ChartsPanel::Refresh() {
  refresh_timer_->stop();
  if (!trace_) return;
  if (worker_ != nullptr) {
    stale_ = true;  // computed again when the running one is done
    return;
  }
  stale_ = false;
  auto request = std::make_shared<Request>();
  request->trace = trace_;
  request->from_ns = from_ns_;
  request->to_ns = to_ns_;
  request->delay_cpu =
      delay_cpu_->currentData().isValid() ? delay_cpu_->currentData().toInt() : -1;
  auto statistics = std::make_shared<Statistics>();
  worker_ = QThread::create([request, statistics] {
    ComputeStatistics(*request->trace, request->from_ns, request->to_ns, request->delay_cpu,
                      &statistics->delays, &statistics->cpus, &statistics->activations,
                      &statistics->napi_work);
  });
  QThread* worker = worker_;
  // Queued to this (GUI) thread: the charts are built and replaced here.
  connect(worker, &QThread::finished, this, [this, worker, request, statistics] {
    Finished(worker);
    if (!stale_) Show(*request, *statistics);
    if (stale_) Refresh();
  });
  worker_->start();
}

void ChartsPanel::Finished(QThread* worker) {
  worker->wait();
  if (worker == worker_) worker_ = nullptr;
  delete worker;
}

void ChartsPanel::WaitForRefresh() {
  if (refresh_timer_->isActive()) Refresh();
  while (worker_ != nullptr) {
    worker_->wait();
    QCoreApplication::sendPostedEvents(this);  // Finished, then Show or the next Refresh
  }
}

void ChartsPanel::Show(const Request& request, const Statistics& statistics) {
  const Timeline& timeline = request.trace->timeline;
  TimestampNs origin = timeline.start_ns();
  TimestampNs from_ns = request.from_ns;
  TimestampNs to_ns = request.to_ns;
  // The range on a line of its own under each title, in the go-to box's syntax.
  TimestampNs resolution = std::max<TimestampNs>(1, (to_ns - from_ns) / 1000);
  QString range = QString("<br>%1 … %2").arg(FormatOffset(from_ns - origin, resolution),
                                              FormatOffset(to_ns - origin, resolution));
  QString where =
      request.delay_cpu < 0 ? QString("all CPUs") : QString("CPU %1").arg(request.delay_cpu);
  // A chart whose analyses could not run says which events are missing, not "none here".
  const TraceSummary& trace = request.trace->report.trace;
  auto not_recorded = [&](std::initializer_list<AnalysisId> analyses) {
    for (AnalysisId id : analyses) {
      if (AnalysisRan(trace, id)) return QString();
    }
    const AnalysisAvailability* first = AvailabilityOf(trace, *analyses.begin());
    if (first == nullptr) return QString();
    QStringList events;
    for (const std::string& event : first->missing_required) events << Str(event);
    return QString("not recorded:<br>no %1 events").arg(events.join(", "));
  };
  QString title = QString("Softirq raise → entry delay, %1%2").arg(where, range);
  QString why = not_recorded({AnalysisId::kSoftirqLatency});
  Replace(0, why.isEmpty() ? MakeDelayChart(statistics.delays, title,
                                            request.trace->context.meta.time_resolution_ns)
                           : MakeNotRecordedChart(title, why));
  // Without task switches the IRQ and softirq time is still known; the rest is not a task's.
  title = QString("CPU time%1").arg(range);
  why = not_recorded({AnalysisId::kContexts});
  if (!why.isEmpty()) title += QString("<br>(tasks %1)").arg(why.replace("<br>", " "));
  Replace(1, MakeCpuTimeChart(statistics.cpus, title, BarsThatFit(views_[1], 24)));
  title = QString("Thread activations, same vs cross-CPU%1").arg(range);
  why = not_recorded({AnalysisId::kIrqThreadPingpong, AnalysisId::kNapiThreadPingpong});
  Replace(2, why.isEmpty()
                 ? MakeActivationChart(statistics.activations, request.trace->context.strings,
                                       BarsThatFit(views_[2], kMaxThreads), title)
                 : MakeNotRecordedChart(title, why));
  title = QString("NAPI work per poll%1").arg(range);
  why = not_recorded({AnalysisId::kNapi});
  Replace(3, why.isEmpty() ? MakeNapiWorkChart(statistics.napi_work, title)
                           : MakeNotRecordedChart(title, why));
}

}  // namespace napiscope::gui
