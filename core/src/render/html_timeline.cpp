// A finding's timeline as SVG: the GUI's lanes (task, hard IRQ, softirq with its raise-to-entry
// waits, NAPI polls) per CPU plus a lane per thread the finding names, queried from the Timeline
// per pixel column, so the SVG grows with its width, never with the events in the interval.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/html_parts.h"

namespace napiscope::internal {
namespace {

constexpr double kLabelWidth = 120;
constexpr int kColumns = 720;  // pixel columns of the time axis
constexpr double kRulerHeight = 18;
constexpr double kWaitBarHeight = 4;
constexpr double kMarkHeight = 3;
constexpr double kMinColumnHeight = 2;
constexpr double kTallLane = 16;  // task and softirq lanes
constexpr double kThinLane = 11;  // hard IRQ and NAPI lanes
constexpr double kCpuHeight = 2 * kTallLane + 2 * kThinLane;

struct Row {
  int cpu = -1;        // -1: a thread row
  int32_t pid = 0;     // thread rows
  Lane lane = Lane::kTask;
  double top = 0;
  double height = 0;
  std::string label;
};

class TimelineSvg {
 public:
  TimelineSvg(const HtmlTraceView& view, TimestampNs from_ns, TimestampNs to_ns,
              const TimelineFilter& named)
      : view_(view),
        timeline_(*view.timeline),
        from_ns_(from_ns),
        to_ns_(std::max(to_ns, from_ns + 1)),
        named_(timeline_.NamedItems(named)) {}

  double XOf(TimestampNs ts) const {
    return kLabelWidth + static_cast<double>(ts - from_ns_) * kColumns /
                             static_cast<double>(to_ns_ - from_ns_);
  }

  std::string Render(const std::vector<int>& cpus, const std::vector<int32_t>& pids,
                     TimestampNs mark_from, TimestampNs mark_to) {
    double y = kRulerHeight;
    for (int cpu : cpus) {
      for (Lane lane : {Lane::kTask, Lane::kHardirq, Lane::kSoftirq, Lane::kNapiPoll}) {
        double height = lane == Lane::kTask || lane == Lane::kSoftirq ? kTallLane : kThinLane;
        std::string label = lane == Lane::kTask ? fmt::format("CPU {} task", cpu)
                            : lane == Lane::kHardirq ? "hard IRQ"
                            : lane == Lane::kSoftirq ? "softirq"
                                                     : "NAPI poll";
        rows_.push_back({cpu, 0, lane, y, height, label});
        y += height;
      }
      y += 3;
    }
    for (int32_t pid : pids) {
      rows_.push_back({-1, pid, Lane::kTask, y, 14, ThreadLabel(pid)});
      y += 14;
    }
    double height = y + 2;
    double width = kLabelWidth + kColumns + 4;
    out_ << fmt::format(
        "<svg class=\"timeline\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\">",
        Coord(width), Coord(height), Coord(width), Coord(height));
    out_ << "<title>timeline " << HtmlEscape(FormatTimestamp(from_ns_)) << " .. "
         << HtmlEscape(FormatTimestamp(to_ns_)) << "</title>";
    for (size_t i = 0; i < rows_.size(); ++i) {
      const Row& row = rows_[i];
      Rgb background = row.lane == Lane::kHardirq || row.lane == Lane::kNapiPoll
                           ? palette::LaneBackgroundAlt()
                           : palette::LaneBackground();
      out_.Rect(0, row.top, kLabelWidth - 2, row.height, palette::LabelBackground());
      out_.Rect(kLabelWidth, row.top, kColumns, row.height, background);
      out_.SvgText(kLabelWidth - 6, row.top + row.height - 3.5, row.label, "end",
                   row.lane == Lane::kTask && row.cpu >= 0 ? "mark" : "axis");
    }
    double mark_x0 = std::max(XOf(mark_from), kLabelWidth);
    double mark_x1 = std::min(XOf(mark_to), kLabelWidth + kColumns);
    if (mark_x1 >= mark_x0) {
      out_.Rect(mark_x0, kRulerHeight, std::max(1.0, mark_x1 - mark_x0), y - kRulerHeight,
                palette::Highlight());
    }
    for (const Row& row : rows_) PaintRow(row);
    PaintGaps();
    PaintArrows(cpus);
    PaintRuler(y);
    out_.Line(mark_x0, kRulerHeight, mark_x0, y, palette::Emphasis(), 1, "edge");
    out_.Line(mark_x1, kRulerHeight, mark_x1, y, palette::Emphasis(), 1, "edge");
    out_ << "</svg>";
    return out_.Take();
  }

 private:
  std::string ThreadLabel(int32_t pid) const {
    std::string comm = "pid " + std::to_string(pid);
    for (const TimelineItem& item : timeline_.items()) {
      if (item.lane == Lane::kTask && item.pid == pid) {
        comm = std::string(view_.strings->Get(item.name));
        break;
      }
    }
    // As much of the comm as fits the label column before "… pid", cut between characters.
    constexpr double kRoom = kLabelWidth - 8;
    std::string label = fmt::format("{} {}", comm, pid);
    if (EstimatedTextWidth(label) <= kRoom) return label;
    std::string tail = fmt::format("… {}", pid);
    return std::string(FittingPrefix(comm, kRoom - EstimatedTextWidth(tail))) + tail;
  }

  std::string Describe(const TimelineItem& item, TimestampNs duration_ns, int cpu) const {
    std::string_view name = view_.strings->Get(item.name);
    std::string where = cpu >= 0 ? fmt::format(" on CPU {}", cpu) : "";
    switch (item.lane) {
      case Lane::kTask:
        return fmt::format("{} (pid {}, {}){}: {}", name, item.pid,
                           palette::TaskClassLabel(item.task_class), where,
                           FormatDuration(duration_ns));
      case Lane::kHardirq:
        return fmt::format("{} {}: {}", timeline_.HardirqTitle(item.key), name,
                           FormatDuration(duration_ns));
      case Lane::kSoftirq:
        return fmt::format("softirq {} in {}: {}", SoftirqVectorName(item.vec),
                           SoftirqSiteName(item.site), FormatDuration(duration_ns));
      case Lane::kSoftirqWait:
        return fmt::format("{} raised, waited {} for its entry", SoftirqVectorName(item.vec),
                           FormatDuration(duration_ns));
      case Lane::kNapiPoll:
        return fmt::format("NAPI poll {}: {}/{} packets{}, {}", name, item.work, item.budget,
                           item.work >= item.budget ? " (budget exhausted)" : "",
                           FormatDuration(duration_ns));
    }
    return "";
  }

  void PaintRow(const Row& row) {
    if (row.cpu >= 0) {
      if (row.lane == Lane::kSoftirq) {
        PaintSlice(row, row.cpu, Lane::kSoftirqWait,
                   row.top + (row.height - kWaitBarHeight) / 2, kWaitBarHeight, nullptr);
      }
      PaintSlice(row, row.cpu, row.lane, row.top + 2, row.height - 4, nullptr);
      return;
    }
    TimelineFilter its_task;
    its_task.pids = {row.pid};
    ItemMask mask = timeline_.MatchingItems(its_task);
    for (int cpu = 0; cpu < timeline_.cpus(); ++cpu) {
      PaintSlice(row, cpu, Lane::kTask, row.top + 2, row.height - 4, &mask);
    }
  }

  void PaintSlice(const Row& row, int cpu, Lane lane, double top, double height,
                  const ItemMask* mask) {
    LaneSlice slice = timeline_.Query(cpu, lane, from_ns_, to_ns_, kColumns, mask);
    double ns_per_column = static_cast<double>(to_ns_ - from_ns_) / kColumns;
    // Neighbouring columns that look the same become one rectangle, as the GUI fills them;
    // heights in quarters, so that runs stay long and the SVG small.
    ForEachColumnRun(
        slice, ns_per_column,
        [&](double fraction) {
          return std::clamp(std::ceil(fraction * 4) / 4 * height, kMinColumnHeight, height);
        },
        [&](const ColumnRun& run) {
          std::string tooltip = fmt::format(
              "{} {} in {}: {} busy, longest {}, mostly {}{}", run.count,
              lane == Lane::kSoftirqWait ? "waits" : "intervals",
              FormatDuration(static_cast<int64_t>(static_cast<double>(run.width) * ns_per_column)),
              FormatDuration(run.busy_ns), FormatDuration(run.longest_ns),
              timeline_.KeyLabel(lane, run.key, *view_.strings),
              cpu >= 0 && row.cpu < 0 ? fmt::format(" on CPU {}", cpu) : "");
          double x = kLabelWidth + static_cast<double>(run.first);
          out_.Rect(x, top + height - run.bar, static_cast<double>(run.width), run.bar,
                    palette::KeyColor(lane, run.key), tooltip);
          if (run.marked) {
            out_.Rect(x, top, static_cast<double>(run.width), kMarkHeight,
                      palette::ExhaustedMark());
          }
        });
    const std::vector<TimelineItem>& items = timeline_.items();
    for (const TimelineInterval& interval : slice.intervals) {
      const TimelineItem& item = items[interval.item];
      double x0 = std::max(XOf(interval.start_ns), kLabelWidth);
      double x1 = std::min(XOf(interval.end_ns), kLabelWidth + kColumns);
      double width = std::max(0.6, x1 - x0);
      bool named = interval.item < named_.size() && named_[interval.item] != 0 &&
                   lane != Lane::kSoftirqWait;
      out_.Rect(x0, top, width, height, palette::KeyColor(lane, item.key),
                Describe(item, interval.duration_ns(), row.cpu < 0 ? cpu : -1),
                named ? "named" : "");
      if (item.flags & kItemExhausted) out_.Rect(x0, top, width, kMarkHeight,
                                                 palette::ExhaustedMark());
      if (lane != Lane::kSoftirqWait && width >= 48 && height >= 10) {
        std::string label = lane == Lane::kSoftirq ? std::string(SoftirqVectorName(item.vec))
                                                   : std::string(view_.strings->Get(item.name));
        if (row.cpu < 0) label = fmt::format("CPU {}", cpu);
        label = std::string(FittingPrefix(label, width - 6));  // 3 px each side
        Rgb fill = palette::KeyColor(lane, item.key);
        bool dark = fill.red() * 299 + fill.green() * 587 + fill.blue() * 114 < 140000;
        out_.SvgText(x0 + 3, top + height - 3, label, "start", dark ? "on-dark" : "");
      }
    }
  }

  void PaintGaps() {
    for (const Row& row : rows_) {
      if (row.cpu < 0 || row.lane != Lane::kTask) continue;
      double bottom = row.top + kCpuHeight;
      for (const TimelineGap& gap : timeline_.gaps(row.cpu)) {
        if (gap.end_ns < from_ns_ || gap.start_ns > to_ns_) continue;
        double x0 = std::max(XOf(gap.start_ns), kLabelWidth);
        double x1 = std::min(XOf(gap.end_ns), kLabelWidth + kColumns);
        std::string what = gap.lost_events > 0 ? Counted(gap.lost_events, "event") + " lost"
                                               : "events lost or a context switch missing";
        out_.Rect(x0, row.top, std::max(2.0, x1 - x0), bottom - row.top, palette::GapShade(),
                  fmt::format("unknown: {} ({})", what,
                              FormatDuration(gap.end_ns - gap.start_ns)),
                  "gap");
      }
    }
  }

  const Row* Find(int cpu, Lane lane) const {
    for (const Row& row : rows_) {
      if (row.cpu == cpu && row.lane == lane) return &row;
    }
    return nullptr;
  }

  void PaintArrows(const std::vector<int>& cpus) {
    if (cpus.size() < 2) return;
    for (const Activation& arrow : timeline_.CrossCpuArrows(from_ns_, to_ns_, kColumns)) {
      const Row* from = Find(arrow.from_cpu, arrow.kind == ActivationKind::kIrqThread
                                                 ? Lane::kHardirq
                                                 : Lane::kTask);
      const Row* to = Find(arrow.to_cpu, Lane::kTask);
      if (from == nullptr || to == nullptr) continue;
      double x0 = XOf(arrow.from_ns), y0 = from->top + from->height / 2;
      double x1 = XOf(arrow.to_ns), y1 = to->top + to->height / 2;
      // An arrow from before the range starts at its left edge, not over the lane names.
      if (x0 < kLabelWidth && x1 > x0) {
        y0 += (y1 - y0) * (kLabelWidth - x0) / (x1 - x0);
        x0 = kLabelWidth;
      }
      if (x1 > kLabelWidth + kColumns && x1 > x0) {
        y1 -= (y1 - y0) * (x1 - kLabelWidth - kColumns) / (x1 - x0);
        x1 = kLabelWidth + kColumns;
      }
      if (x1 < x0) continue;
      out_.Line(x0, y0, x1, y1, palette::ActivationColor(arrow.kind), 1.2, "arrow");
    }
  }

  void PaintRuler(double bottom) {
    TimestampNs span = to_ns_ - from_ns_;
    TimestampNs step = 1;
    while (step * 10 < span) step *= 10;
    if (span / step < 3) step /= (span / step < 2 ? 5 : 2);
    step = std::max<TimestampNs>(step, 1);
    out_.SvgText(4, 13, "from " + FormatTimestamp(from_ns_), "start", "axis");
    for (TimestampNs offset = step; offset < span; offset += step) {
      double x = XOf(from_ns_ + offset);
      out_.Line(x, kRulerHeight - 4, x, bottom, palette::GridLine(), 0.5);
      std::string label = "+" + FormatDuration(offset);
      // The last tick's label would run past the picture's end: its line alone says enough.
      if (x + 2 + EstimatedTextWidth(label) <= kLabelWidth + kColumns + 4) {
        out_.SvgText(x + 2, 13, label, "start", "axis");
      }
    }
  }

  const HtmlTraceView& view_;
  const Timeline& timeline_;
  TimestampNs from_ns_;
  TimestampNs to_ns_;
  std::vector<uint8_t> named_;
  std::vector<Row> rows_;
  HtmlOut out_;
};

}  // namespace

std::string FindingTimelineSvg(const HtmlTraceView& view, const std::vector<int>& cpus,
                               const std::vector<int32_t>& pids, const TimelineFilter& named,
                               TimestampNs from_ns, TimestampNs to_ns) {
  if (view.timeline == nullptr || view.strings == nullptr || view.timeline->cpus() == 0) {
    return "";
  }
  const Timeline& timeline = *view.timeline;
  // The finding's interval with a margin on both sides, inside the trace.
  TimestampNs length = std::max<TimestampNs>(to_ns - from_ns, 0);
  TimestampNs margin = std::max<TimestampNs>(length / 5, 10'000);
  TimestampNs begin = std::max(timeline.start_ns(), from_ns - margin);
  TimestampNs end = std::min(timeline.end_ns(), to_ns + margin);
  if (end <= begin) end = begin + 1;
  std::vector<int> shown;
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < timeline.cpus()) shown.push_back(cpu);
  }
  TimelineSvg svg(view, begin, end, named);
  return svg.Render(shown, pids, from_ns, std::max(to_ns, from_ns));
}

}  // namespace napiscope::internal
