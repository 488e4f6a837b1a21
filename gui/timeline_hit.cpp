#include "timeline_hit.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <span>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "qt_text.h"
#include "time_text.h"

namespace napiscope::gui {
namespace {

// Pixels of slack around the mouse when picking an interval.
constexpr double kSlackPixels = 3;
// A compact row's wait bar is 4 pixels through its middle; this far from the middle is on it.
constexpr int kWaitBarPixels = 3;
// More intervals than this under the mouse are summarised instead of picked.
constexpr size_t kMaxPicked = 12;

QString Html(std::string_view text) { return Str(text).toHtmlEscaped(); }

QString Duration(TimestampNs ns) { return QString::fromStdString(FormatDuration(ns)); }

// "at 1553.278955123 (+245.13 ms)": the trace time, as the event list shows it, and
// the offset from the trace start, as the ruler does.
QString At(const LoadedTrace& trace, TimestampNs ts_ns) {
  return QString("at %1 (+%2)")
      .arg(FormatTraceSeconds(ts_ns, 1), Duration(ts_ns - trace.timeline.start_ns()));
}

QString TaskName(const LoadedTrace& trace, StringId comm, int32_t pid) {
  std::string_view name = trace.context.strings.Get(comm);
  return QString("%1 (pid %2)").arg(name.empty() ? QString("?") : Html(name)).arg(pid);
}

// `pid` running on `cpu` at `ts_ns`: the idle task is swapper/N of that CPU.
QString TaskName(const LoadedTrace& trace, int32_t pid, int cpu, TimestampNs ts_ns) {
  std::string name = TaskNameOnCpu(trace.context.tasks, trace.context.strings, pid, cpu, ts_ns);
  return QString("%1 (pid %2)").arg(name.empty() ? QString("?") : Html(name)).arg(pid);
}

QString Priority(int16_t prio) {
  if (prio < 0) return "prio ?";
  if (prio < 100) return QString("RT prio %1").arg(RtPriorityOf(prio));
  return QString("nice %1").arg(prio - 120);
}

QString FlagNotes(uint8_t flags) {
  QStringList notes;
  if (flags & kItemStartUnknown) notes << "began before the trace or a gap";
  if (flags & kItemEndUnknown) notes << "end unknown (gap or end of trace)";
  if (flags & kItemSuspended) notes << "cut short: its task was switched out";
  if (flags & kItemResumed) notes << "resumed after its task came back";
  return notes.isEmpty() ? QString() : "<br><i>" + notes.join("; ") + "</i>";
}

// Intervals of `lane` within the slack around `ts_ns`, when few enough to pick from.
std::optional<std::vector<TimelineInterval>> Candidates(const LoadedTrace& trace,
                                                        const TimelineViewState& state, int cpu,
                                                        Lane lane, TimestampNs from_ns,
                                                        TimestampNs to_ns) {
  const TimelineLane& intervals = trace.timeline.lane(cpu, lane);
  if (intervals.LowerBound(to_ns) - intervals.LowerBound(from_ns) > kMaxPicked) return std::nullopt;
  std::vector<TimelineInterval> found = trace.timeline.Overlapping(cpu, lane, from_ns, to_ns);
  std::erase_if(found, [&](const TimelineInterval& i) { return !state.item_mask.Shows(i.item); });
  return found;
}

// The interval containing ts_ns that is shortest (the innermost), else the nearest one.
std::optional<TimelineInterval> Pick(const std::vector<TimelineInterval>& found,
                                     TimestampNs ts_ns) {
  std::optional<TimelineInterval> best;
  auto distance = [ts_ns](const TimelineInterval& i) -> TimestampNs {
    if (ts_ns < i.start_ns) return i.start_ns - ts_ns;
    if (ts_ns > i.end_ns) return ts_ns - i.end_ns;
    return 0;
  };
  for (const TimelineInterval& interval : found) {
    if (!best || distance(interval) < distance(*best) ||
        (distance(interval) == distance(*best) && interval.duration_ns() < best->duration_ns())) {
      best = interval;
    }
  }
  return best;
}

}  // namespace

std::optional<TimelineHit> HitTest(const LoadedTrace& trace, const TimelineViewState& state,
                                   const TimelineLayout& layout, QPoint pos) {
  const LaneRow* row = layout.RowAt(pos.y());
  if (row == nullptr || row->kind == RowKind::kThread || pos.x() < layout.time_left()) {
    return std::nullopt;
  }
  TimeAxis axis = AxisOf(state, layout);
  TimestampNs ts = axis.TimeAt(pos.x());
  TimestampNs slack = static_cast<TimestampNs>(kSlackPixels * axis.NsPerPixel()) + 1;
  // A compact row: the innermost context drawn there first, as it is drawn in front.
  static constexpr std::array<Lane, 4> kCompactLanes = {Lane::kHardirq, Lane::kSoftirq,
                                                        Lane::kNapiPoll, Lane::kTask};
  std::array<Lane, 2> row_lanes = {TimelineLayout::LaneOf(row->kind), Lane::kSoftirqWait};
  // Its wait bar (through the row's middle, over the task) where the pointer is on that bar.
  static constexpr std::array<Lane, 5> kCompactWaitLanes = {
      Lane::kHardirq, Lane::kSoftirq, Lane::kNapiPoll, Lane::kSoftirqWait, Lane::kTask};
  bool on_wait_bar = std::abs(pos.y() - row->center()) <= kWaitBarPixels;
  std::span<const Lane> lanes = row->kind == RowKind::kCompact
                                    ? on_wait_bar ? std::span<const Lane>(kCompactWaitLanes)
                                                  : std::span<const Lane>(kCompactLanes)
                                : row->kind == RowKind::kSoftirq
                                    ? std::span<const Lane>(row_lanes)
                                    : std::span<const Lane>(row_lanes).first(1);
  for (Lane lane : lanes) {
    auto found = Candidates(trace, state, row->cpu, lane, ts - slack, ts + slack);
    if (!found || found->empty()) continue;
    if (std::optional<TimelineInterval> best = Pick(*found, ts)) {
      return TimelineHit{row->cpu, lane, *best};
    }
  }
  return std::nullopt;
}

QString DescribeInterval(const LoadedTrace& trace, const TimelineHit& hit) {
  const TimelineItem& item = trace.timeline.items()[hit.interval.item];
  const TimelineInterval& interval = hit.interval;
  QString when = QString("%1, lasted <b>%2</b>")
                     .arg(At(trace, interval.start_ns), Duration(interval.duration_ns()));
  QString vector = Html(SoftirqVectorName(item.vec));
  switch (hit.lane) {
    case Lane::kTask:
      return QString("<b>%1</b><br>%2 · %3 · CPU %4<br>%5%6")
          .arg(TaskName(trace, item.name, item.pid), Html(TaskClassName(item.task_class)),
               Priority(item.prio))
          .arg(hit.cpu)
          .arg(when, FlagNotes(item.flags));
    case Lane::kHardirq:
      return QString("<b>%1</b> %2 · CPU %3<br>%4%5")
          .arg(Html(trace.timeline.HardirqTitle(item.key)))
          .arg(Html(trace.context.strings.Get(item.name)))
          .arg(hit.cpu)
          .arg(when, FlagNotes(item.flags));
    case Lane::kSoftirq: {
      QString text =
          QString("<b>%1 softirq</b> · CPU %2<br>ran at %3 in %4<br>%5")
              .arg(vector)
              .arg(hit.cpu)
              .arg(Html(SoftirqSiteName(item.site)), TaskName(trace, item.name, item.pid), when);
      // The wait that ended where this run began, if the raise was traced (it overlaps the
      // nanosecond before the entry).
      for (const TimelineInterval& wait : trace.timeline.Overlapping(
               hit.cpu, Lane::kSoftirqWait, interval.start_ns - 1, interval.start_ns - 1)) {
        if (wait.end_ns == interval.start_ns && trace.timeline.items()[wait.item].vec == item.vec) {
          text += QString("<br>raised %1 before it ran").arg(Duration(wait.duration_ns()));
        }
      }
      return text + FlagNotes(item.flags);
    }
    case Lane::kSoftirqWait:
      return QString("<b>%1 raised → entry</b> · CPU %2<br>raised %3, waited <b>%4</b>")
          .arg(vector)
          .arg(hit.cpu)
          .arg(At(trace, interval.start_ns), Duration(interval.duration_ns()));
    case Lane::kNapiPoll: {
      QString exhausted = (item.flags & kItemExhausted)
                              ? QString("<br><b>budget exhausted</b>: polled again")
                              : QString();
      QString site =
          item.site == SoftirqSite::kNone ? QString("task") : Html(SoftirqSiteName(item.site));
      return QString("<b>NAPI poll %1</b> · CPU %2<br>work %3 / budget %4%5<br>in %6 (%7)<br>%8")
          .arg(Html(trace.context.strings.Get(item.name)))
          .arg(hit.cpu)
          .arg(item.work)
          .arg(item.budget)
          .arg(exhausted,
               TaskName(trace, item.pid, hit.cpu, interval.start_ns),
               site, when);
    }
  }
  return {};
}

QString DescribeAt(const LoadedTrace& trace, const TimelineViewState& state,
                   const TimelineLayout& layout, QPoint pos) {
  const LaneRow* row = layout.RowAt(pos.y());
  if (row == nullptr || row->kind == RowKind::kThread || pos.x() < layout.time_left()) return {};
  TimeAxis axis = AxisOf(state, layout);
  TimestampNs ts = axis.TimeAt(pos.x());
  QString gap_text;
  for (const TimelineGap& gap : trace.timeline.gaps(row->cpu)) {
    if (ts < gap.start_ns || ts > gap.end_ns) continue;
    QString why = gap.lost_events > 0
                      ? QString("the ring buffer dropped %1")
                            .arg(QString::fromStdString(Counted(gap.lost_events, "event")))
                  : gap.lost_events < 0 ? QString("the ring buffer dropped events")
                                        : QString("a sched_switch is missing from the trace");
    gap_text = QString("<b>Unknown</b> for %1: %2<br>nothing here is measured<br>")
                   .arg(Duration(gap.end_ns - gap.start_ns), why);
  }
  if (std::optional<TimelineHit> hit = HitTest(trace, state, layout, pos)) {
    return gap_text + DescribeInterval(trace, *hit);
  }
  // Too dense to pick one: summarise what starts within the slack around the mouse.
  static constexpr std::array<Lane, 4> kAllLanes = {Lane::kTask, Lane::kHardirq, Lane::kSoftirq,
                                                    Lane::kNapiPoll};
  std::array<Lane, 1> row_lane = {TimelineLayout::LaneOf(row->kind)};
  std::span<const Lane> lanes = row->kind == RowKind::kCompact ? std::span<const Lane>(kAllLanes)
                                                               : std::span<const Lane>(row_lane);
  TimestampNs slack = static_cast<TimestampNs>(kSlackPixels * axis.NsPerPixel()) + 1;
  QString text;
  for (Lane lane : lanes) {
    TimelineColumn column = trace.timeline.Summarize(row->cpu, lane, ts - slack, ts + slack);
    if (column.count == 0) continue;
    QString kind = lane == Lane::kTask      ? "task runs"
                   : lane == Lane::kHardirq ? "hard IRQs"
                   : lane == Lane::kSoftirq ? "softirq runs"
                                            : "NAPI polls";
    if (!text.isEmpty()) text += "<br>";
    text += QString("<b>%1 %2</b> within ±%3 · CPU %4<br>busy %5 · longest %6 · mostly %7")
                .arg(column.count)
                .arg(kind, Duration(slack))
                .arg(row->cpu)
                .arg(Duration(column.busy_ns), Duration(column.longest_ns),
                     QString::fromStdString(trace.timeline.KeyLabel(lane, column.dominant_key,
                                                                    trace.context.strings)));
    if (column.marked > 0) text += QString("<br>%1 exhausted the budget").arg(column.marked);
  }
  if (text.isEmpty()) return gap_text;
  return gap_text + text + "<br><i>zoom in to see each one</i>";
}

}  // namespace napiscope::gui
