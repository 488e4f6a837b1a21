#include "timeline_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "timeline_hit.h"

namespace napiscope::gui {
namespace {

constexpr TimestampNs kMinSpanNs = 100;
constexpr double kWheelZoomPerNotch = 1.25;
constexpr double kKeyZoom = 1.5;
constexpr double kKeyPan = 0.15;
constexpr int kDragThreshold = 4;

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  UpdateHeight();
}

void TimelineView::SetTrace(std::shared_ptr<const LoadedTrace> trace) {
  trace_ = std::move(trace);
  state_ = TimelineViewState{};
  if (trace_) state_.cpu_visible.assign(trace_->timeline.cpus(), true);
  UpdateHeight();
  ZoomToFit();
  emit MarkersChanged();
}

void TimelineView::SetRange(TimestampNs from_ns, TimestampNs to_ns) {
  if (!trace_) return;
  TimestampNs start = trace_->timeline.start_ns();
  TimestampNs end = std::max(trace_->timeline.end_ns(), start + kMinSpanNs);
  TimestampNs span = std::clamp(to_ns - from_ns, kMinSpanNs, end - start);
  from_ns = std::clamp(from_ns, start, end - span);
  if (from_ns == state_.from_ns && from_ns + span == state_.to_ns) return;
  state_.from_ns = from_ns;
  state_.to_ns = from_ns + span;
  update();
  emit RangeChanged(state_.from_ns, state_.to_ns);
  EmitSelected();
}

void TimelineView::ZoomToFit() {
  if (!trace_) return;
  SetRange(trace_->timeline.start_ns(), trace_->timeline.end_ns());
}

TimeAxis TimelineView::Axis() const { return AxisOf(state_, Layout()); }

void TimelineView::Zoom(double factor, double anchor_x) {
  TimeAxis axis = Axis();
  TimestampNs anchor = axis.TimeAt(std::clamp<double>(anchor_x, axis.left, axis.left + axis.width));
  double span = static_cast<double>(state_.to_ns - state_.from_ns) * factor;
  double left_share = (anchor_x - axis.left) / axis.width;
  left_share = std::clamp(left_share, 0.0, 1.0);
  TimestampNs from = anchor - static_cast<TimestampNs>(std::llround(span * left_share));
  SetRange(from, from + static_cast<TimestampNs>(std::llround(span)));
}

void TimelineView::Pan(double fraction) {
  TimestampNs shift = static_cast<TimestampNs>(
      std::llround(static_cast<double>(state_.to_ns - state_.from_ns) * fraction));
  SetRange(state_.from_ns + shift, state_.to_ns + shift);
}

void TimelineView::SetCpuVisible(int cpu, bool visible) {
  if (cpu < 0) return;
  if (cpu >= static_cast<int>(state_.cpu_visible.size())) state_.cpu_visible.resize(cpu + 1, true);
  state_.cpu_visible[cpu] = visible;
  UpdateHeight();
  update();
}

bool TimelineView::CpuVisible(int cpu) const {
  return cpu < 0 || cpu >= static_cast<int>(state_.cpu_visible.size()) || state_.cpu_visible[cpu];
}

void TimelineView::SetItemMask(ItemMask mask) {
  state_.item_mask = std::move(mask);
  update();
}

void TimelineView::SetHighlight(std::vector<int> cpus,
                                std::optional<std::pair<TimestampNs, TimestampNs>> window,
                                std::vector<uint8_t> emphasis) {
  state_.highlight_cpus = std::move(cpus);
  state_.highlight_window = window;
  state_.emphasis = std::move(emphasis);
  update();
}

void TimelineView::SetMarkers(std::optional<TimestampNs> a, std::optional<TimestampNs> b) {
  state_.marker_a = a;
  state_.marker_b = b;
  update();
  emit MarkersChanged();
  EmitSelected();
}

std::pair<TimestampNs, TimestampNs> TimelineView::SelectedRange() const {
  if (state_.marker_a && state_.marker_b) {
    return std::minmax(*state_.marker_a, *state_.marker_b);
  }
  return {state_.from_ns, state_.to_ns};
}

void TimelineView::EmitSelected() {
  auto [from, to] = SelectedRange();
  emit SelectedRangeChanged(from, to);
}

TimelineLayout TimelineView::Layout() const {
  int cpus = trace_ ? trace_->timeline.cpus() : 0;
  return TimelineLayout(cpus, state_.cpu_visible, width());
}

void TimelineView::UpdateHeight() { setMinimumHeight(Layout().height()); }

QSize TimelineView::sizeHint() const { return QSize(1200, Layout().height()); }

void TimelineView::paintEvent(QPaintEvent* event) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().window());
  if (!trace_) {
    painter.drawText(rect(), Qt::AlignCenter,
                     "Open a trace.dat or ftrace text file: File > Open, or drop it here.");
    return;
  }
  TimelineLayout layout = Layout();
  TimelinePainter(*trace_, state_, layout).Paint(painter, event->rect());
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  pressed_ = true;
  dragging_ = false;
  press_pos_ = event->position().toPoint();
  press_from_ns_ = state_.from_ns;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (!pressed_) return;
  QPoint delta = event->position().toPoint() - press_pos_;
  if (!dragging_ && std::abs(delta.x()) < kDragThreshold) return;
  dragging_ = true;
  setCursor(Qt::ClosedHandCursor);
  TimestampNs span = state_.to_ns - state_.from_ns;
  TimestampNs shift = static_cast<TimestampNs>(std::llround(delta.x() * Axis().NsPerPixel()));
  SetRange(press_from_ns_ - shift, press_from_ns_ - shift + span);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !pressed_) return QWidget::mouseReleaseEvent(event);
  pressed_ = false;
  unsetCursor();
  if (dragging_ || !trace_) return;
  TimeAxis axis = Axis();
  if (event->position().x() < axis.left) return;
  TimestampNs ts = axis.TimeAt(event->position().x());
  if (event->modifiers() & Qt::ShiftModifier) {
    SetMarkers(state_.marker_a, ts);
  } else {
    SetMarkers(ts, state_.marker_b);
  }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (!trace_) return;
  std::optional<TimelineHit> hit = HitTest(*trace_, state_, Layout(), event->position().toPoint());
  if (!hit) return;
  TimestampNs margin = std::max<TimestampNs>(hit->interval.duration_ns() / 10, 50);
  SetRange(hit->interval.start_ns - margin, hit->interval.end_ns + margin);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  if (!trace_ || event->angleDelta().y() == 0) return QWidget::wheelEvent(event);
  if (event->modifiers() & Qt::ShiftModifier) {
    event->ignore();  // let the scroll area scroll vertically
    return;
  }
  double notches = event->angleDelta().y() / 120.0;
  Zoom(std::pow(kWheelZoomPerNotch, -notches), event->position().x());
  event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  if (!trace_) return QWidget::keyPressEvent(event);
  double center = Axis().left + Axis().width / 2.0;
  switch (event->key()) {
    case Qt::Key_W:
      Zoom(1 / kKeyZoom, center);
      break;
    case Qt::Key_S:
      Zoom(kKeyZoom, center);
      break;
    case Qt::Key_A:
      Pan(-kKeyPan);
      break;
    case Qt::Key_D:
      Pan(kKeyPan);
      break;
    case Qt::Key_Home:
    case Qt::Key_0:
      ZoomToFit();
      break;
    case Qt::Key_Escape:
      SetMarkers(std::nullopt, std::nullopt);
      break;
    default:
      return QWidget::keyPressEvent(event);
  }
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && trace_) {
    auto* help = static_cast<QHelpEvent*>(event);
    QString text = DescribeAt(*trace_, state_, Layout(), help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace napiscope::gui
