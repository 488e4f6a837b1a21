#include "timeline_painter.h"

#include <QPolygonF>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>

#include "fill_batch.h"
#include "palette.h"
#include "qt_text.h"
#include "time_text.h"

namespace napiscope::gui {
namespace {

// Rows of a softirq lane: runs fill the row; the raise-to-entry waits are a thin bar through
// its middle, visible where nothing runs (just before each run).
constexpr int kWaitBarHeight = 4;
constexpr int kExhaustedMarkHeight = 3;
// Aggregated columns show occupancy as height; anything present is at least this tall.
constexpr int kMinColumnHeight = 3;
// Up to this many arrows in a frame get antialiasing and heads.
constexpr size_t kDetailedArrows = 300;

// Bars of aggregated columns of one colour: `width` columns from `x`, `height` pixels tall.
struct ColumnBar {
  int x = 0;
  int width = 0;
  int height = 0;
};

// Appends to `strips` horizontal rectangles that cover exactly the pixels of `bars` (in x order,
// standing on `bottom`), each pixel once: over each run of adjacent bars a strip as tall as the
// lowest of them, then the same over the runs of bars that rise above it. Bars of neighbouring
// columns differ by a pixel or two, so most of their height is in a few long strips.
void AppendStrips(std::span<const ColumnBar> bars, int bottom, QVector<QRect>* strips) {
  struct Part {
    size_t begin = 0;
    size_t end = 0;
    int base = 0;  // the height already covered by the strips below
  };
  std::vector<Part> parts;
  for (size_t begin = 0; begin < bars.size();) {
    size_t end = begin + 1;
    while (end < bars.size() && bars[end].x == bars[end - 1].x + bars[end - 1].width) ++end;
    parts.push_back({begin, end, 0});
    begin = end;
  }
  while (!parts.empty()) {
    Part part = parts.back();
    parts.pop_back();
    int lowest = bars[part.begin].height;
    for (size_t i = part.begin; i < part.end; ++i) lowest = std::min(lowest, bars[i].height);
    if (lowest <= part.base) continue;  // not reached: parts rise above their base
    int left = bars[part.begin].x;
    int right = bars[part.end - 1].x + bars[part.end - 1].width;
    strips->append(QRect(left, bottom - lowest, right - left, lowest - part.base));
    for (size_t i = part.begin; i < part.end;) {
      if (bars[i].height == lowest) {
        ++i;
        continue;
      }
      size_t rise = i + 1;
      while (rise < part.end && bars[rise].height > lowest) ++rise;
      parts.push_back({i, rise, lowest});
      i = rise;
    }
  }
}

}  // namespace

TimestampNs RulerStep(double ns_per_pixel, int min_pixels) {
  double wanted = std::max(1.0, ns_per_pixel * min_pixels);
  TimestampNs power = 1;
  while (true) {
    for (TimestampNs factor : {1, 2, 5}) {
      if (static_cast<double>(power * factor) >= wanted) return power * factor;
    }
    power *= 10;
  }
}

QString RulerLabel(TimestampNs offset_ns, TimestampNs step_ns) {
  if (offset_ns == 0) return "0";
  // The unit of the offset's magnitude, with as many decimals as the step needs to differ.
  OffsetUnit unit = OffsetUnitOf(offset_ns, step_ns);
  double value = static_cast<double>(offset_ns) / static_cast<double>(unit.ns);
  return QString("%1 %2").arg(QString::number(value, 'f', unit.decimals), unit.name);
}

int ColumnBarHeight(double fraction, int height) {
  return std::clamp(static_cast<int>(std::lround(fraction * height)), kMinColumnHeight, height);
}

void PaintColumns(QPainter& painter, const LaneSlice& slice, Lane lane, const TimeAxis& axis,
                  int top, int height) {
  if (slice.columns.empty()) return;
  // A wide view of many CPUs has hundreds of thousands of bars a frame, most of them one or two
  // pixels wide, and the setup of a fill costs more than its pixels. So the bars of one colour
  // that stand side by side are cut into horizontal strips (a strip as wide as the lowest of
  // them, then the same above it), which are fewer rectangles than bars, and each colour's
  // strips are filled in one call. Strips cover exactly the bars' pixels, once each, and the
  // exhausted marks are drawn after all bars: the pixels of filling each bar and its mark in
  // turn.
  struct KeyBars {
    uint16_t key = 0;
    std::vector<ColumnBar> bars;
  };
  std::vector<KeyBars> bars_by_key;
  QVector<QRect> marks;
  auto bars_of = [&](uint16_t key) -> std::vector<ColumnBar>& {
    for (KeyBars& same : bars_by_key) {
      if (same.key == key) return same.bars;
    }
    return bars_by_key.emplace_back(KeyBars{key, {}}).bars;
  };
  // Neighbouring columns that look the same are one bar.
  ForEachColumnRun(
      slice, axis.NsPerPixel(), [&](double fraction) { return ColumnBarHeight(fraction, height); },
      [&](const ColumnRun& run) {
        int x = axis.left + static_cast<int>(run.first);
        int width = static_cast<int>(run.width);
        bars_of(run.key).push_back({x, width, static_cast<int>(run.bar)});
        if (run.marked) marks.append(QRect(x, top, width, kExhaustedMarkHeight));
      });
  QPen pen = painter.pen();
  QBrush brush = painter.brush();
  painter.setPen(Qt::NoPen);
  QVector<QRect> strips;
  for (const KeyBars& same : bars_by_key) {
    strips.clear();
    AppendStrips(same.bars, top + height, &strips);
    painter.setBrush(palette::KeyColor(lane, same.key));
    painter.drawRects(strips);
  }
  if (!marks.isEmpty()) {
    painter.setBrush(palette::ExhaustedMark());
    painter.drawRects(marks);
  }
  painter.setPen(pen);
  painter.setBrush(brush);
}

TimeAxis AxisOf(const TimelineViewState& state, const TimelineLayout& layout) {
  return TimeAxis{state.from_ns, std::max(state.to_ns, state.from_ns + 1), layout.time_left(),
                  layout.time_width()};
}

TimelinePainter::TimelinePainter(const LoadedTrace& trace, const TimelineViewState& state,
                                 const TimelineLayout& layout, const ThreadLanes* threads)
    : trace_(trace), state_(state), layout_(layout), threads_(threads),
      axis_(AxisOf(state, layout)) {}

QFont TimelinePainter::FrameFont(const QFont& widget_font) {
  QFont small = widget_font;
  small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
  return small;
}

void TimelinePainter::Paint(QPainter& painter) {
  PaintContent(painter);
  PaintMarkers(painter);
}

void TimelinePainter::PaintContent(QPainter& painter) {
  painter.fillRect(QRect(0, 0, layout_.width(), layout_.height()), palette::LaneBackground());
  painter.setFont(FrameFont(painter.font()));
  QRect rows_area(0, layout_.rows_top(), layout_.width(), layout_.height() - layout_.rows_top());
  painter.save();
  painter.setClipRect(rows_area);
  for (const LaneRow& row : layout_.rows()) {
    if (row.bottom() < rows_area.top() || row.top > rows_area.bottom()) continue;
    PaintRow(painter, row);
    PaintLabels(painter, row);
  }
  PaintHighlight(painter);
  PaintArrows(painter);
  painter.restore();
  PaintThreadRows(painter);
  PaintRuler(painter);
}

void TimelinePainter::PaintThreadRows(QPainter& painter) {
  if (layout_.thread_rows().empty()) return;
  for (const LaneRow& row : layout_.thread_rows()) {
    painter.fillRect(QRect(0, row.top, layout_.width(), row.height), palette::LaneBackgroundAlt());
    QRect label(0, row.top, TimelineLayout::kLabelWidth, row.height);
    painter.fillRect(label, palette::PinnedLabel());
    painter.setPen(palette::GridLine());
    painter.drawLine(0, row.bottom() - 1, layout_.width(), row.bottom() - 1);
    const ThreadLaneData* lane = threads_ != nullptr ? threads_->Find(row.pid) : nullptr;
    QString name = lane != nullptr ? lane->name : QString("pid %1").arg(row.pid);
    QFontMetrics metrics(painter.font());
    painter.setPen(palette::Text());
    // The name whole when it fits; else elided, with the whole name in the tooltip.
    painter.drawText(label.adjusted(4, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     metrics.elidedText(name, Qt::ElideMiddle, label.width() - 6));
    if (lane != nullptr) PaintThreadLane(painter, *lane, row, axis_);
  }
  int bottom = layout_.thread_rows().back().bottom();
  painter.fillRect(QRect(0, bottom, layout_.width(), layout_.rows_top() - bottom),
                   palette::GridLine().darker(140));
}

void TimelinePainter::PaintLabels(QPainter& painter, const LaneRow& row) {
  QRect label(0, row.top, TimelineLayout::kLabelWidth, row.height);
  bool highlighted = std::find(state_.highlight_cpus.begin(), state_.highlight_cpus.end(),
                               row.cpu) != state_.highlight_cpus.end();
  painter.fillRect(label, highlighted ? QColor(0xffe8a3) : palette::LabelBackground());
  painter.setPen(palette::GridLine());
  painter.drawLine(label.left(), row.bottom() - 1, layout_.width(), row.bottom() - 1);
  if (row.kind != RowKind::kCompact) {
    painter.setPen(palette::Text().lighter(160));
    painter.drawText(label.adjusted(0, 0, -6, 0), Qt::AlignRight | Qt::AlignVCenter,
                     TimelineLayout::RowName(row.kind));
  }
  if (row.kind == RowKind::kTask || row.kind == RowKind::kCompact) {
    // The CPU's name, with the triangle that expands (clicked) or collapses its rows.
    QFont frame_font = painter.font();
    QPen pen = painter.pen();
    painter.setFont(CpuNameFont(frame_font, row));
    painter.setPen(palette::Text());
    QString triangle = row.kind == RowKind::kCompact ? "▸" : "▾";
    painter.drawText(label.adjusted(4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                     QString("%1 CPU %2").arg(triangle).arg(row.cpu));
    painter.setFont(frame_font);
    painter.setPen(pen);
  }
}

const QFont& TimelinePainter::CpuNameFont(const QFont& frame_font, const LaneRow& row) {
  int pixel_size = row.kind == RowKind::kTask ? 0 : std::clamp(row.height - 2, 8, 13);
  if (cpu_name_font_ && cpu_name_font_->first == pixel_size) return cpu_name_font_->second;
  QFont bold = frame_font;
  bold.setBold(true);
  if (pixel_size == 0) {
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
  } else {
    bold.setPixelSize(pixel_size);
  }
  cpu_name_font_.emplace(pixel_size, bold);
  return cpu_name_font_->second;
}

void TimelinePainter::PaintRow(QPainter& painter, const LaneRow& row) {
  QColor background = row.kind == RowKind::kHardirq || row.kind == RowKind::kNapiPoll
                          ? palette::LaneBackgroundAlt()
                          : palette::LaneBackground();
  painter.fillRect(QRect(axis_.left, row.top, axis_.width, row.height - 1), background);
  // Unknown time goes under what was recorded: IRQs and softirqs seen in a gap stay visible.
  PaintGaps(painter, row);
  if (row.kind == RowKind::kCompact) return PaintCompactRow(painter, row);
  int top = row.top + 2;
  int height = row.height - 4;
  if (row.kind == RowKind::kSoftirq) {
    int wait_top = row.center() - kWaitBarHeight / 2;
    PaintSlice(painter, row, Lane::kSoftirqWait, wait_top, kWaitBarHeight, false);
  }
  PaintSlice(painter, row, TimelineLayout::LaneOf(row.kind), top, height, true);
}

void TimelinePainter::PaintCompactRow(QPainter& painter, const LaneRow& row) {
  // One line per CPU: the task at full height, softirqs over its lower two thirds, hard IRQs
  // over its lower third (innermost context in front), NAPI polls as a strip along the top.
  // Raise -> entry waits are the thin bar through the middle, as in an expanded softirq row:
  // over the task, under the softirq that ends them.
  int top = row.top + 1;
  int height = row.height - 2;
  int softirq = height * 2 / 3;
  int hardirq = std::max(2, height / 3);
  int napi = std::max(2, height / 5);
  PaintSlice(painter, row, Lane::kTask, top, height, height >= 14);
  PaintSlice(painter, row, Lane::kSoftirqWait, row.center() - kWaitBarHeight / 2, kWaitBarHeight,
             false);
  PaintSlice(painter, row, Lane::kSoftirq, top + height - softirq, softirq, false);
  PaintSlice(painter, row, Lane::kHardirq, top + height - hardirq, hardirq, false);
  PaintSlice(painter, row, Lane::kNapiPoll, top, napi, false);
}

void TimelinePainter::PaintSlice(QPainter& painter, const LaneRow& row, Lane lane, int top,
                                 int height, bool labels) {
  LaneSlice slice = trace_.timeline.Query(row.cpu, lane, axis_.from_ns, axis_.to_ns, axis_.width,
                                          &state_.item_mask);
  PaintColumns(painter, slice, lane, axis_, top, height);
  const std::vector<TimelineItem>& items = trace_.timeline.items();
  // A view of a busy stretch draws a few hundred intervals a lane, hundreds of thousands a
  // frame, most one or two pixels wide with nothing over them: their fills are batched per
  // colour (the same pixels), and the batch is drawn before an outline, mark or label.
  FillBatch fills(painter);
  // Neighbouring intervals mostly share a key: its colour is made once per run.
  std::optional<uint16_t> fill_key;
  QColor fill;
  QRgb fill_rgba = 0;
  for (const TimelineInterval& interval : slice.intervals) {
    const TimelineItem& item = items[interval.item];
    double x0 = std::max<double>(axis_.XOf(interval.start_ns), axis_.left - 1);
    double x1 = std::min<double>(axis_.XOf(interval.end_ns), axis_.left + axis_.width + 1);
    QRectF rect(x0, top, std::max(1.0, x1 - x0), height);
    if (fill_key != item.key) {
      fill = palette::KeyColor(lane, item.key);
      fill_rgba = fill.rgba();
      fill_key = item.key;
    }
    bool outlined = rect.width() >= 4 && height > kWaitBarHeight;
    bool labelled = labels && rect.width() >= 24;
    if (!outlined && !labelled && (item.flags & kItemExhausted) == 0) {
      fills.Fill(rect, fill_rgba);
      continue;
    }
    fills.Flush();
    painter.fillRect(rect, fill);
    if (outlined) {
      painter.setPen(fill.darker(150));
      painter.drawRect(rect.adjusted(0, 0, -1, -1));
    }
    if (item.flags & kItemExhausted) {
      painter.fillRect(QRectF(x0, top, rect.width(), kExhaustedMarkHeight),
                       palette::ExhaustedMark());
    }
    if (labels) PaintIntervalLabel(painter, interval, lane, rect);
  }
}

void TimelinePainter::PaintIntervalLabel(QPainter& painter, const TimelineInterval& interval,
                                         Lane lane, const QRectF& rect) {
  if (rect.width() < 24) return;
  const TimelineItem& item = trace_.timeline.items()[interval.item];
  const StringTable& strings = trace_.context.strings;
  QString text;
  switch (lane) {
    case Lane::kTask:
      text = Str(strings.Get(item.name));
      break;
    case Lane::kHardirq:
      text = Str(strings.Get(item.name));
      break;
    case Lane::kSoftirq:
      text = Str(SoftirqVectorName(item.vec));
      break;
    case Lane::kNapiPoll:
      text = QString("%1 %2/%3").arg(Str(strings.Get(item.name))).arg(item.work).arg(item.budget);
      break;
    case Lane::kSoftirqWait:
      return;
  }
  QFontMetricsF metrics(painter.font());
  QRectF inner = rect.adjusted(3, 0, -3, 0);
  // Keep the label on screen when the interval starts left of the view.
  inner.setLeft(std::max<double>(inner.left(), axis_.left + 3));
  if (inner.width() < metrics.horizontalAdvance("abc")) return;
  QString shown = metrics.elidedText(text, Qt::ElideRight, inner.width());
  QColor fill = palette::KeyColor(lane, item.key);
  painter.setPen(fill.lightness() > 150 ? palette::Text() : QColor(Qt::white));
  painter.drawText(inner, Qt::AlignVCenter | Qt::AlignLeft, shown);
}

void TimelinePainter::PaintGaps(QPainter& painter, const LaneRow& row) {
  const std::vector<TimelineGap>& gaps = trace_.timeline.gaps(row.cpu);
  auto first = std::partition_point(gaps.begin(), gaps.end(), [&](const TimelineGap& gap) {
    return gap.end_ns < axis_.from_ns;
  });
  // Gaps closer than a pixel are one run, drawn once: hundreds of short gaps stay one light
  // hatch instead of darkening each other.
  QBrush hatch(palette::GapHatch(), Qt::BDiagPattern);
  int run_x0 = 0;
  int run_x1 = -1;
  auto flush = [&] {
    if (run_x1 < run_x0) return;
    QRect rect(run_x0, row.top, run_x1 - run_x0 + 1, row.height - 1);
    painter.fillRect(rect, palette::GapFill());
    painter.fillRect(rect, hatch);
  };
  for (auto gap = first; gap != gaps.end() && gap->start_ns <= axis_.to_ns; ++gap) {
    int x0 = static_cast<int>(std::floor(std::max<double>(axis_.XOf(gap->start_ns), axis_.left)));
    int x1 = static_cast<int>(
        std::ceil(std::min<double>(axis_.XOf(gap->end_ns), axis_.left + axis_.width - 1)));
    if (x0 <= run_x1 + 1) {
      run_x1 = std::max(run_x1, x1);
      continue;
    }
    flush();
    run_x0 = x0;
    run_x1 = std::max(x0, x1);
  }
  flush();
}

void TimelinePainter::PaintHighlight(QPainter& painter) {
  if (!state_.highlight_window) return;
  double x0 = std::max<double>(axis_.XOf(state_.highlight_window->first), axis_.left);
  double x1 =
      std::min<double>(axis_.XOf(state_.highlight_window->second), axis_.left + axis_.width);
  if (x1 < x0) return;
  for (int cpu : state_.highlight_cpus) {
    std::optional<std::pair<int, int>> span = layout_.CpuSpan(cpu);
    if (!span) continue;
    QRectF rect(x0, span->first, std::max(2.0, x1 - x0), span->second - span->first);
    painter.fillRect(rect, palette::Highlight());
    painter.setPen(QPen(palette::Highlight().darker(200), 1, Qt::DashLine));
    painter.drawRect(rect);
  }
}

void TimelinePainter::PaintArrows(QPainter& painter) {
  std::vector<Activation> arrows =
      trace_.timeline.CrossCpuArrows(axis_.from_ns, axis_.to_ns, axis_.width);
  // Few arrows are individual facts: smooth, with heads. Many are a pattern: light, plain lines
  // drawn in one call per kind, so a zoomed-out frame stays cheap.
  bool few = arrows.size() <= kDetailedArrows;
  int alpha = few ? 210 : std::clamp(static_cast<int>(12000 / arrows.size()), 45, 120);
  std::array<QVector<QLineF>, 3> lines;
  QVector<QPolygonF> heads;
  std::vector<ActivationKind> head_kinds;
  for (const Activation& arrow : arrows) {
    RowKind from_row =
        arrow.kind == ActivationKind::kIrqThread ? RowKind::kHardirq : RowKind::kTask;
    const LaneRow* from = layout_.Anchor(arrow.from_cpu, from_row);
    const LaneRow* to = layout_.Anchor(arrow.to_cpu, RowKind::kTask);
    if (from == nullptr || to == nullptr) continue;
    QPointF start(axis_.XOf(arrow.from_ns), from->center());
    QPointF end(axis_.XOf(arrow.to_ns), to->center());
    lines[static_cast<int>(arrow.kind)].append(QLineF(start, end));
    QPointF direction = end - start;
    double length = std::hypot(direction.x(), direction.y());
    if (!few || length < 6) continue;
    direction /= length;
    QPointF normal(-direction.y(), direction.x());
    heads.append(
        QPolygonF({end, end - direction * 7 + normal * 3.5, end - direction * 7 - normal * 3.5}));
    head_kinds.push_back(arrow.kind);
  }
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, few);
  painter.setClipRect(QRect(axis_.left, layout_.rows_top(), axis_.width,
                            layout_.height() - layout_.rows_top()),
                      Qt::IntersectClip);
  for (int kind = 0; kind < static_cast<int>(lines.size()); ++kind) {
    QColor color = palette::ActivationColor(static_cast<ActivationKind>(kind));
    color.setAlpha(alpha);
    painter.setPen(QPen(color, few ? 1.4 : 1.0));
    painter.drawLines(lines[kind]);
  }
  painter.setPen(Qt::NoPen);
  for (qsizetype i = 0; i < heads.size(); ++i) {
    QColor color = palette::ActivationColor(head_kinds[i]);
    color.setAlpha(alpha);
    painter.setBrush(color);
    painter.drawPolygon(heads[i]);
  }
  painter.restore();
}

void TimelinePainter::PaintRuler(QPainter& painter) {
  QRect ruler(0, 0, layout_.width(), TimelineLayout::kRulerHeight);
  painter.fillRect(ruler, palette::LabelBackground());
  painter.setPen(palette::GridLine());
  painter.drawLine(0, ruler.bottom(), layout_.width(), ruler.bottom());
  TimestampNs step = RulerStep(axis_.NsPerPixel(), 90);
  TimestampNs origin = trace_.timeline.start_ns();
  TimestampNs first_offset = ((axis_.from_ns - origin) / step) * step;
  if (origin + first_offset < axis_.from_ns) first_offset += step;
  painter.setPen(palette::Text());
  painter.drawText(QRect(6, 0, TimelineLayout::kLabelWidth - 8, ruler.height()),
                   Qt::AlignVCenter | Qt::AlignLeft, "time from start");
  for (TimestampNs offset = first_offset; origin + offset <= axis_.to_ns; offset += step) {
    double x = axis_.XOf(origin + offset);
    painter.setPen(palette::GridLine().darker(130));
    painter.drawLine(QPointF(x, ruler.bottom() - 8), QPointF(x, ruler.bottom()));
    QColor grid = palette::GridLine();
    grid.setAlpha(110);
    painter.setPen(QPen(grid, 1, Qt::DotLine));
    painter.drawLine(QPointF(x, ruler.bottom()), QPointF(x, layout_.height()));
    painter.setPen(palette::Text());
    painter.drawText(QRectF(x + 3, 2, 120, ruler.height() - 10), Qt::AlignLeft | Qt::AlignVCenter,
                     RulerLabel(offset, step));
  }
}

void TimelinePainter::PaintMarkers(QPainter& painter) {
  auto paint = [&](std::optional<TimestampNs> marker, QColor color, const char* name) {
    if (!marker || *marker < axis_.from_ns || *marker > axis_.to_ns) return;
    double x = axis_.XOf(*marker);
    painter.setPen(QPen(color, 1.5));
    painter.drawLine(QPointF(x, 0), QPointF(x, layout_.height()));
    QRectF tag(x - 8, 1, 16, 13);
    painter.fillRect(tag, color);
    painter.setPen(Qt::white);
    painter.drawText(tag, Qt::AlignCenter, name);
  };
  paint(state_.marker_a, palette::MarkerA(), "A");
  paint(state_.marker_b, palette::MarkerB(), "B");
}

}  // namespace napiscope::gui
