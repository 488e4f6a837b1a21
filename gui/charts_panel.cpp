#include "charts_panel.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <algorithm>

#include "chart_builders.h"
#include "napiscope/format.h"
#include "napiscope/timeline_stats.h"
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
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  outer->addWidget(scroll);
  auto* charts = new QWidget(scroll);
  scroll->setWidget(charts);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(2, 2, 2, 2);
  grid->setSpacing(4);
  for (QChartView*& view : views_) {
    view = new QChartView(new QChart, charts);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(kMinChartWidth, kMinChartHeight);
  }
  // The delay histogram carries its CPU selector above it.
  auto* delay_box = new QWidget(charts);
  auto* delay_layout = new QVBoxLayout(delay_box);
  delay_layout->setContentsMargins(0, 0, 0, 0);
  delay_layout->setSpacing(0);
  auto* selector = new QWidget(delay_box);
  auto* selector_layout = new QHBoxLayout(selector);
  selector_layout->setContentsMargins(4, 0, 0, 0);
  selector_layout->addWidget(new QLabel("Delay histogram on", selector));
  delay_cpu_ = new QComboBox(selector);
  selector_layout->addWidget(delay_cpu_);
  selector_layout->addStretch(1);
  delay_layout->addWidget(selector);
  delay_layout->addWidget(views_[0], 1);
  grid->addWidget(delay_box, 0, 0);
  grid->addWidget(views_[1], 0, 1);
  grid->addWidget(views_[2], 1, 0);
  grid->addWidget(views_[3], 1, 1);
  refresh_timer_ = new QTimer(this);
  refresh_timer_->setSingleShot(true);
  refresh_timer_->setInterval(kRefreshDelayMs);
  connect(refresh_timer_, &QTimer::timeout, this, &ChartsPanel::Refresh);
  connect(delay_cpu_, &QComboBox::currentIndexChanged, this, &ChartsPanel::Refresh);
}

void ChartsPanel::SetTrace(std::shared_ptr<const LoadedTrace> trace) {
  trace_ = std::move(trace);
  delay_cpu_->blockSignals(true);
  delay_cpu_->clear();
  delay_cpu_->addItem("all CPUs", -1);
  for (int cpu = 0; trace_ && cpu < trace_->timeline.cpus(); ++cpu) {
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
}

void ChartsPanel::Refresh() {
  refresh_timer_->stop();
  if (!trace_) return;
  const Timeline& timeline = trace_->timeline;
  TimestampNs origin = timeline.start_ns();
  // The range on a line of its own under each title, in the go-to box's syntax.
  TimestampNs resolution = std::max<TimestampNs>(1, (to_ns_ - from_ns_) / 1000);
  QString range = QString("<br>%1 … %2").arg(FormatOffset(from_ns_ - origin, resolution),
                                              FormatOffset(to_ns_ - origin, resolution));
  int delay_cpu = delay_cpu_->currentData().isValid() ? delay_cpu_->currentData().toInt() : -1;
  QString where = delay_cpu < 0 ? QString("all CPUs") : QString("CPU %1").arg(delay_cpu);
  Replace(0, MakeDelayChart(SoftirqWaitHistograms(timeline, delay_cpu, from_ns_, to_ns_),
                            QString("Softirq raise → entry delay, %1%2").arg(where, range)));
  std::vector<CpuTimeBreakdown> cpus;
  for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
    cpus.push_back(BreakDownCpuTime(timeline, cpu, from_ns_, to_ns_));
  }
  Replace(1,
          MakeCpuTimeChart(cpus, QString("CPU time%1").arg(range), BarsThatFit(views_[1], 24)));
  Replace(2, MakeActivationChart(
                 CountActivations(timeline, from_ns_, to_ns_), trace_->context.strings,
                 BarsThatFit(views_[2], kMaxThreads),
                 QString("Thread activations, same vs cross-CPU%1").arg(range)));
  Replace(3, MakeNapiWorkChart(CountNapiWork(timeline, -1, from_ns_, to_ns_),
                               QString("NAPI work per poll%1").arg(range)));
}

}  // namespace napiscope::gui
