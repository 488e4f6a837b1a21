#include "thread_lanes.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "napiscope/facts.h"
#include "napiscope/format.h"
#include "napiscope/producers.h"
#include "palette.h"
#include "qt_text.h"
#include "time_text.h"

namespace napiscope::gui {
namespace {

constexpr int kWaitBarHeight = 4;
constexpr int kMigrationMark = 5;

QString Duration(TimestampNs ns) { return QString::fromStdString(FormatDuration(ns)); }

// The wake -> run waits of one task as the core's wake-wait producer pairs them.
class WakeWaitsOf : public FactListener {
 public:
  explicit WakeWaitsOf(int32_t pid) : pid_(pid) {}

  void OnWakeQueued(const WakeWaitFact& fact) override {
    if (fact.pid == pid_) waker_cpu_[fact.wait_id] = fact.waker_cpu;
  }
  void OnWakeRan(const WakeRunFact& run) override {
    auto waker = waker_cpu_.find(run.wait_id);
    if (waker == waker_cpu_.end()) return;
    waits_.push_back({run.waking_ns, run.run_ns, waker->second, run.cpu, std::nullopt});
    waker_cpu_.erase(waker);
  }
  void OnWakeDropped(uint64_t wait_id, WakeDropReason, TimestampNs) override {
    waker_cpu_.erase(wait_id);
  }

  std::vector<ThreadWait> Take() { return std::move(waits_); }

 private:
  int32_t pid_;
  std::map<uint64_t, uint16_t> waker_cpu_;  // open waits of the task -> the waker's CPU
  std::vector<ThreadWait> waits_;
};

// Every wake -> run wait of `pid`: the trace's events through the core's fact producers.
std::vector<ThreadWait> WakeWaits(const LoadedTrace& trace, int32_t pid) {
  FactProducers facts;
  WakeWaitsOf waits(pid);
  facts.AddListener(&waits);
  facts.OnBegin(trace.context);
  trace.events.Scan(0, trace.events.size(), [&](uint64_t, const Event& event) {
    facts.OnEvent(event);
    return true;
  });
  facts.OnEnd();
  return waits.Take();
}

}  // namespace

ThreadLaneData BuildThreadLane(const LoadedTrace& trace, int32_t pid) {
  ThreadLaneData lane;
  lane.pid = pid;
  const Timeline& timeline = trace.timeline;
  std::vector<uint8_t> mine(timeline.items().size());
  for (size_t i = 0; i < mine.size(); ++i) {
    const TimelineItem& item = timeline.items()[i];
    mine[i] = item.lane == Lane::kTask && item.pid == pid;
  }
  for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
    const TimelineLane& tasks = timeline.lane(cpu, Lane::kTask);
    for (size_t i = 0; i < tasks.size(); ++i) {
      TimelineInterval interval = tasks.At(i);
      if (!mine[interval.item]) continue;
      lane.runs.push_back({interval.start_ns, interval.end_ns, static_cast<uint16_t>(cpu)});
    }
  }
  std::sort(lane.runs.begin(), lane.runs.end(),
            [](const ThreadRun& a, const ThreadRun& b) { return a.start_ns < b.start_ns; });
  std::vector<ThreadRun> merged;
  for (const ThreadRun& run : lane.runs) {
    if (!merged.empty() && merged.back().cpu == run.cpu && merged.back().end_ns >= run.start_ns) {
      merged.back().end_ns = std::max(merged.back().end_ns, run.end_ns);
      continue;
    }
    if (!merged.empty() && merged.back().cpu != run.cpu) ++lane.migrations;
    merged.push_back(run);
  }
  lane.runs = std::move(merged);
  for (const Activation& activation : timeline.activations()) {
    if (activation.pid != pid) continue;
    lane.wakes.push_back({activation.from_ns, activation.to_ns, activation.from_cpu,
                          activation.to_cpu, activation.kind});
  }
  // A task that is no service thread: its wakeups, paired by the core when it is pinned.
  if (lane.wakes.empty() && pid > 0) lane.wakes = WakeWaits(trace, pid);
  TimestampNs when = lane.runs.empty() ? timeline.start_ns() : lane.runs.front().start_ns;
  std::string_view comm = trace.context.strings.Get(trace.context.tasks.CommAt(pid, when));
  lane.name = QString("%1 (%2)").arg(comm.empty() ? QString("?") : Str(comm)).arg(pid);
  return lane;
}

std::vector<int32_t> FindTasks(const LoadedTrace& trace, const QString& spec) {
  std::vector<int32_t> pids;
  bool is_pid = false;
  int pid = spec.toInt(&is_pid);
  for (const auto& [candidate, record] : trace.context.tasks.tasks()) {
    bool match = is_pid && candidate == pid;
    for (const TaskRecord::CommChange& change : record.comms) {
      match = match || (!is_pid && Str(trace.context.strings.Get(change.comm)).startsWith(spec));
    }
    if (match) pids.push_back(candidate);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

void ThreadLanes::Add(const LoadedTrace& trace, int32_t pid) {
  if (lanes_.count(pid) == 0) {
    lanes_[pid] = std::make_shared<const ThreadLaneData>(BuildThreadLane(trace, pid));
  }
}

const ThreadLaneData* ThreadLanes::Find(int32_t pid) const {
  auto it = lanes_.find(pid);
  return it == lanes_.end() ? nullptr : it->second.get();
}

void PaintThreadLane(QPainter& painter, const ThreadLaneData& lane, const LaneRow& row,
                     const TimeAxis& axis) {
  int top = row.top + 2;
  int height = row.height - 4 - kWaitBarHeight;
  auto first = std::partition_point(lane.runs.begin(), lane.runs.end(),
                                    [&](const ThreadRun& run) { return run.end_ns < axis.from_ns; });
  int filled_to = axis.left - 1;  // runs narrower than a pixel draw one column once
  QFontMetrics metrics(painter.font());
  for (auto run = first; run != lane.runs.end() && run->start_ns <= axis.to_ns; ++run) {
    double x0 = std::max<double>(axis.XOf(run->start_ns), axis.left);
    double x1 = std::min<double>(axis.XOf(run->end_ns), axis.left + axis.width);
    if (x1 - x0 < 1 && static_cast<int>(x0) <= filled_to) continue;
    QRectF rect(x0, top, std::max(1.0, x1 - x0), height);
    QColor color = palette::CpuColor(run->cpu);
    painter.fillRect(rect, color);
    filled_to = static_cast<int>(std::ceil(x0 + rect.width())) - 1;
    QString label = QString("CPU %1").arg(run->cpu);
    if (rect.width() >= metrics.horizontalAdvance(label) + 6) {
      painter.setPen(palette::Text());
      painter.drawText(rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
    } else if (rect.width() >= metrics.horizontalAdvance("00") + 4) {
      painter.setPen(palette::Text());
      painter.drawText(rect, Qt::AlignCenter, QString::number(run->cpu));
    }
    // A migration: this run is on another CPU than the one before.
    if (run != lane.runs.begin() && std::prev(run)->cpu != run->cpu && x0 > axis.left) {
      QPointF tip(x0, top + kMigrationMark);
      painter.setPen(Qt::NoPen);
      painter.setBrush(palette::Text());
      painter.drawPolygon(QPolygonF({QPointF(x0 - kMigrationMark / 2.0, top), tip,
                                     QPointF(x0 + kMigrationMark / 2.0, top)}));
      painter.setBrush(Qt::NoBrush);
    }
  }
  // Wake -> run waits, as a bar along the bottom in the activation's colour (a plain wakeup's
  // colour for other tasks).
  int wait_top = row.bottom() - 2 - kWaitBarHeight;
  auto wake = std::lower_bound(lane.wakes.begin(), lane.wakes.end(),
                               axis.from_ns - (axis.to_ns - axis.from_ns),
                               [](const ThreadWait& a, TimestampNs ts) { return a.from_ns < ts; });
  int waits_to = axis.left - 1;
  for (; wake != lane.wakes.end() && wake->from_ns <= axis.to_ns; ++wake) {
    if (wake->to_ns < axis.from_ns) continue;
    double x0 = std::max<double>(axis.XOf(wake->from_ns), axis.left);
    double x1 = std::min<double>(axis.XOf(wake->to_ns), axis.left + axis.width);
    if (x1 - x0 < 1 && static_cast<int>(x0) <= waits_to) continue;
    painter.fillRect(
        QRectF(x0, wait_top, std::max(1.0, x1 - x0), kWaitBarHeight),
        wake->activation ? palette::ActivationColor(*wake->activation) : palette::WakeWait());
    waits_to = static_cast<int>(std::ceil(std::max(x1, x0 + 1))) - 1;
  }
}

QString DescribeThreadAt(const LoadedTrace& trace, const ThreadLaneData& lane, TimestampNs ts_ns,
                         TimestampNs slack_ns) {
  QString text = QString("<b>%1</b> · %2 runs, %3 migrations, %4 waits")
                     .arg(lane.name.toHtmlEscaped())
                     .arg(lane.runs.size())
                     .arg(lane.migrations)
                     .arg(lane.wakes.size());
  TimestampNs origin = trace.timeline.start_ns();
  auto run = std::partition_point(lane.runs.begin(), lane.runs.end(), [&](const ThreadRun& r) {
    return r.end_ns < ts_ns - slack_ns;
  });
  if (run != lane.runs.end() && run->start_ns <= ts_ns + slack_ns) {
    text += QString("<br>ran on <b>CPU %1</b> at %2 (+%3) for %4")
                .arg(run->cpu)
                .arg(FormatTraceSeconds(run->start_ns, 1), Duration(run->start_ns - origin),
                     Duration(run->end_ns - run->start_ns));
    if (run != lane.runs.begin() && std::prev(run)->cpu != run->cpu) {
      text += QString("<br>migrated from CPU %1").arg(std::prev(run)->cpu);
    }
  }
  for (const ThreadWait& wake : lane.wakes) {
    if (wake.from_ns > ts_ns + slack_ns) break;
    if (wake.to_ns < ts_ns - slack_ns) continue;
    text += QString("<br>woken on CPU %1 at %2 (+%3), ran on CPU %4 after <b>%5</b>")
                .arg(wake.from_cpu)
                .arg(FormatTraceSeconds(wake.from_ns, 1), Duration(wake.from_ns - origin))
                .arg(wake.to_cpu)
                .arg(Duration(wake.to_ns - wake.from_ns));
  }
  return text;
}

}  // namespace napiscope::gui
