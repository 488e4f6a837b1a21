#include "chart_builders.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QHorizontalPercentBarSeries>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>

#include "palette.h"
#include "qt_text.h"

namespace napiscope::gui {
namespace {

QChart* NewChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  QFont title_font = chart->titleFont();
  title_font.setBold(true);
  title_font.setPointSizeF(title_font.pointSizeF() * 0.95);
  chart->setTitleFont(title_font);
  chart->setMargins(QMargins(4, 2, 4, 2));
  chart->setBackgroundRoundness(0);
  chart->legend()->setAlignment(Qt::AlignRight);
  QFont legend_font = chart->legend()->font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.85);
  chart->legend()->setFont(legend_font);
  return chart;
}

QBarSet* NewSet(const QString& label, QColor color) {
  auto* set = new QBarSet(label);
  set->setColor(color);
  set->setBorderColor(color.darker(130));
  return set;
}

// Attaches a category axis (bottom or left) and a value axis to a bar series on `chart`.
void AddAxes(QChart* chart, QAbstractBarSeries* series, const QStringList& categories,
             bool horizontal, const QString& value_title) {
  chart->addSeries(series);
  auto* category = new QBarCategoryAxis;
  category->append(categories);
  QFont small = category->labelsFont();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  category->setLabelsFont(small);
  auto* value = new QValueAxis;
  value->setLabelsFont(small);
  value->setTitleText(value_title);
  QFont title_font = value->titleFont();
  title_font.setPointSizeF(title_font.pointSizeF() * 0.8);
  value->setTitleFont(title_font);
  category->setTitleFont(title_font);
  value->setLabelFormat("%d");
  // Many bins side by side: labels turned upright, so a bin needs only a line's width.
  if (!horizontal && categories.size() > 4) category->setLabelsAngle(-90);
  chart->addAxis(category, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
  chart->addAxis(value, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
  series->attachAxis(category);
  series->attachAxis(value);
  value->applyNiceNumbers();
  if (value->max() <= 8) {  // small counts: a tick per unit, not "0 0 0 1"
    value->setTickType(QValueAxis::TicksDynamic);
    value->setTickAnchor(0);
    value->setTickInterval(1);
  }
}

// A chart with nothing to show says why instead of drawing empty axes.
QChart* EmptyChart(const QString& title, const QString& why) {
  QChart* chart = NewChart(QString("%1<br>(%2)").arg(title, why));
  chart->legend()->hide();
  return chart;
}

}  // namespace

QChart* MakeNotRecordedChart(const QString& title, const QString& why) {
  return EmptyChart(title, why);
}

QString ShortDuration(int64_t ns) {
  auto number = [](double value) {  // "4.1", "16", "262": two significant digits, no exponent
    return QString::number(value, 'f', value < 10 ? 1 : 0);
  };
  if (ns < 1000) return QString("%1ns").arg(ns);
  if (ns < 1'000'000) return number(ns / 1e3) + "us";
  if (ns < 1'000'000'000) return number(ns / 1e6) + "ms";
  return number(ns / 1e9) + "s";
}

QChart* MakeDelayChart(const std::array<LogHistogram, kSoftirqVectorCount>& histograms,
                       const QString& title, int64_t time_resolution_ns) {
  int first = LogHistogram::kBuckets;
  int last = -1;
  for (const LogHistogram& histogram : histograms) {
    for (int b = 0; b < LogHistogram::kBuckets; ++b) {
      if (histogram.counts[b] == 0) continue;
      first = std::min(first, b);
      last = std::max(last, b);
    }
  }
  if (last < 0) return EmptyChart(title, "no raise paired with an entry in this range");
  // Times printed to a step (text to 1 us) are multiples of it: the buckets ending at or below
  // the step can only be empty, and the first bucket holds the delays under the step.
  bool stepped = time_resolution_ns > 1;
  auto possible = [&](int b) {
    return !stepped || b == 0 || LogHistogram::BucketStartNs(b + 1) > time_resolution_ns;
  };
  QStringList categories;
  std::vector<int> shown;
  for (int b = first; b <= last; ++b) {
    if (!possible(b)) continue;
    shown.push_back(b);
    categories << (stepped && b == 0 ? "&lt;" + ShortDuration(time_resolution_ns)
                                     : ShortDuration(LogHistogram::BucketStartNs(b)));
  }
  auto* series = new QStackedBarSeries;
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    if (histograms[vec].total == 0) continue;
    QBarSet* set = NewSet(Str(SoftirqVectorName(vec)), palette::VectorColor(vec));
    for (int b : shown) *set << static_cast<qreal>(histograms[vec].counts[b]);
    series->append(set);
  }
  series->setBarWidth(0.9);
  QChart* chart = NewChart(title);
  AddAxes(chart, series, categories, false, "waits");
  chart->axes(Qt::Horizontal)
      .first()
      ->setTitleText(stepped ? QString("delay: from the label to twice it (times printed to %1)")
                                   .arg(ShortDuration(time_resolution_ns))
                             : QString("delay: from the label to twice it"));
  return chart;
}

std::vector<CpuTimeBreakdown> TopCpus(const std::vector<CpuTimeBreakdown>& cpus, int max_bars,
                                      int* others) {
  *others = 0;
  if (static_cast<int>(cpus.size()) <= max_bars) return cpus;
  auto busy = [](const CpuTimeBreakdown& c) { return c.span_ns - c.idle_ns - c.unknown_ns; };
  std::vector<CpuTimeBreakdown> sorted = cpus;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const CpuTimeBreakdown& a, const CpuTimeBreakdown& b) {
                     return busy(a) > busy(b);
                   });
  std::vector<CpuTimeBreakdown> top(sorted.begin(), sorted.begin() + (max_bars - 1));
  std::sort(top.begin(), top.end(),
            [](const CpuTimeBreakdown& a, const CpuTimeBreakdown& b) { return a.cpu < b.cpu; });
  CpuTimeBreakdown rest;
  rest.cpu = -1;
  for (auto it = sorted.begin() + (max_bars - 1); it != sorted.end(); ++it) {
    ++*others;
    rest.span_ns += it->span_ns;
    rest.unknown_ns += it->unknown_ns;
    rest.hardirq_ns += it->hardirq_ns;
    for (size_t v = 0; v < rest.softirq_ns.size(); ++v) rest.softirq_ns[v] += it->softirq_ns[v];
    for (size_t k = 0; k < rest.task_ns.size(); ++k) rest.task_ns[k] += it->task_ns[k];
    rest.idle_ns += it->idle_ns;
  }
  top.push_back(rest);
  return top;
}

QChart* MakeCpuTimeChart(const std::vector<CpuTimeBreakdown>& all_cpus, const QString& title,
                         int max_bars) {
  if (all_cpus.empty()) return EmptyChart(title, "no CPU");
  int others = 0;
  std::vector<CpuTimeBreakdown> cpus = TopCpus(all_cpus, max_bars, &others);
  // Horizontal bars list the first category at the bottom: reverse, so CPU 0 is on top.
  std::vector<CpuTimeBreakdown> rows(cpus.rbegin(), cpus.rend());
  QStringList categories;
  for (const CpuTimeBreakdown& cpu : rows) {
    categories << (cpu.cpu >= 0 ? QString("CPU %1").arg(cpu.cpu)
                                : QString("%1 others").arg(others));
  }
  auto* series = new QHorizontalPercentBarSeries;
  // One set per part that has time on some CPU, in the order of the timeline's lanes.
  auto add = [&](const QString& label, QColor color, auto value_of) {
    bool any = std::any_of(rows.begin(), rows.end(),
                           [&](const CpuTimeBreakdown& c) { return value_of(c) > 0; });
    if (!any) return;
    QBarSet* set = NewSet(label, color);
    for (const CpuTimeBreakdown& cpu : rows) *set << static_cast<qreal>(value_of(cpu));
    series->append(set);
  };
  add("hard IRQ", palette::KeyColor(Lane::kHardirq, 0),
      [](const CpuTimeBreakdown& c) { return c.hardirq_ns; });
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    add(Str(SoftirqVectorName(vec)), palette::VectorColor(vec),
        [vec](const CpuTimeBreakdown& c) { return c.softirq_ns[vec]; });
  }
  for (TaskClass task_class : palette::LegendTaskClasses()) {
    add(palette::TaskClassLabel(task_class), palette::TaskClassColor(task_class),
        [task_class](const CpuTimeBreakdown& c) {
          return c.task_ns[static_cast<int>(task_class)];
        });
  }
  add("idle", palette::Idle(), [](const CpuTimeBreakdown& c) { return c.idle_ns; });
  add("unknown", palette::GapHatch(), [](const CpuTimeBreakdown& c) { return c.unknown_ns; });
  series->setBarWidth(0.7);
  QChart* chart = NewChart(title);
  AddAxes(chart, series, categories, true, "% of the range");
  return chart;
}

QChart* MakeActivationChart(const std::vector<ThreadActivations>& threads,
                            const StringTable& strings, int max_threads, const QString& title) {
  if (threads.empty()) {
    return EmptyChart(title, "no IRQ thread, NAPI kthread or ksoftirqd activation here");
  }
  int shown = std::min<int>(max_threads, static_cast<int>(threads.size()));
  QStringList categories;
  QBarSet* same = NewSet("same CPU", palette::SameCpu());
  QBarSet* cross = NewSet("cross-CPU", palette::CrossCpu());
  // Horizontal bars list the first category at the bottom: add in reverse so the most
  // cross-CPU thread is on top.
  for (int i = shown - 1; i >= 0; --i) {
    categories << Str(strings.Get(threads[i].comm)).toHtmlEscaped();  // labels are rich text
    *same << static_cast<qreal>(threads[i].same_cpu);
    *cross << static_cast<qreal>(threads[i].cross_cpu);
  }
  auto* series = new QHorizontalStackedBarSeries;
  series->append(same);
  series->append(cross);
  series->setBarWidth(0.7);
  QChart* chart = NewChart(title);
  AddAxes(chart, series, categories, true, "activations");
  return chart;
}

QChart* MakeNapiWorkChart(const NapiWorkHistogram& histogram, const QString& title) {
  if (histogram.polls == 0) return EmptyChart(title, "no NAPI poll in this range");
  int budget = histogram.budget > 0 ? histogram.budget
                                    : static_cast<int>(histogram.polls_by_work.size()) - 1;
  // Bins: no work, then eight equal bins below the budget, then the budget itself.
  int width = std::max(1, budget / 8);
  QStringList categories;
  // Legend labels are rich text: no '<'.
  QBarSet* polls = NewSet("under budget", palette::KeyColor(Lane::kNapiPoll, 0));
  QBarSet* full = NewSet("full budget: polled again", palette::ExhaustedMark());
  auto count = [&](int from, int to) {  // polls with work in [from, to]
    int64_t sum = 0;
    for (int w = from; w <= to && w < static_cast<int>(histogram.polls_by_work.size()); ++w) {
      sum += histogram.polls_by_work[w];
    }
    return static_cast<qreal>(sum);
  };
  categories << "0";
  *polls << count(0, 0);
  *full << 0;
  for (int from = 1; from < budget; from += width) {
    int to = std::min(budget - 1, from + width - 1);
    categories << (to > from ? QString("%1–%2").arg(from).arg(to) : QString::number(from));
    *polls << count(from, to);
    *full << 0;
  }
  categories << QString("≥%1").arg(budget);
  *polls << 0;
  *full << count(budget, static_cast<int>(histogram.polls_by_work.size()));
  auto* series = new QStackedBarSeries;
  series->append(polls);
  series->append(full);
  series->setBarWidth(0.9);
  QChart* chart = NewChart(title);
  AddAxes(chart, series, categories, false, "polls");
  chart->axes(Qt::Horizontal).first()->setTitleText("packets per poll");
  return chart;
}

}  // namespace napiscope::gui
