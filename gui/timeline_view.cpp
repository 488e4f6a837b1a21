#include "timeline_view.h"

#include <QFocusEvent>
#include <QHelpEvent>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QScrollBar>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "qt_text.h"
#include "timeline_hit.h"

namespace napiscope::gui {
namespace {

constexpr TimestampNs kMinSpanNs = 100;
constexpr double kWheelZoomPerNotch = 1.25;
constexpr double kKeyZoom = 1.5;
constexpr double kKeyPan = 0.15;
constexpr int kDragThreshold = 4;

}  // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), scroll_bar_(new QScrollBar(Qt::Vertical, this)) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumHeight(TimelineLayout::kRulerHeight + 3 * TimelineLayout::kMinCompactHeight);
  scroll_bar_->setFocusPolicy(Qt::NoFocus);
  connect(scroll_bar_, &QScrollBar::valueChanged, this, &TimelineView::SetScroll);
  UpdateScrollBar();
}

void TimelineView::SetTrace(std::shared_ptr<const LoadedTrace> trace) {
  trace_ = std::move(trace);
  state_ = TimelineViewState{};
  threads_.Clear();
  if (trace_) {
    // The CPUs without events start hidden; the layout's default expansion (a few CPUs show
    // their four lanes) counts the CPUs shown.
    const std::vector<int>& active = trace_->active_cpus;
    state_.cpu_visible.assign(trace_->timeline.cpus(), false);
    for (int cpu : active) state_.cpu_visible[cpu] = true;
    state_.cpu_expanded.assign(trace_->timeline.cpus(),
                               TimelineLayout::ExpandedByDefault(active.size()));
  }
  UpdateScrollBar();
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

bool TimelineView::ZoomToMarkers() {
  if (!state_.marker_a || !state_.marker_b) return false;
  auto [from, to] = std::minmax(*state_.marker_a, *state_.marker_b);
  TimestampNs margin = std::max<TimestampNs>((to - from) / 20, 1);
  SetRange(from - margin, to + margin);
  return true;
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
  UpdateScrollBar();
  update();
  emit CpuVisibilityChanged();
}

void TimelineView::ShowOnlyCpus(const std::vector<int>& cpus) {
  int count = trace_ ? trace_->timeline.cpus() : static_cast<int>(state_.cpu_visible.size());
  state_.cpu_visible.assign(count, cpus.empty());
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < count) state_.cpu_visible[cpu] = true;
  }
  UpdateScrollBar();
  update();
  emit CpuVisibilityChanged();
}

void TimelineView::ShowCpusWithEvents() {
  ShowOnlyCpus(trace_ ? trace_->active_cpus : std::vector<int>{});
}

void TimelineView::SetCpuExpanded(int cpu, bool expanded) {
  int count = trace_ ? trace_->timeline.cpus() : 0;
  if (cpu < 0 || cpu >= count) return;
  if (state_.cpu_expanded.size() < static_cast<size_t>(count)) {
    std::vector<bool> current(count);
    for (int c = 0; c < count; ++c) current[c] = TimelineLayout::Expanded(state_, count, c);
    state_.cpu_expanded = current;
  }
  state_.cpu_expanded[cpu] = expanded;
  UpdateScrollBar();
  SetScroll(Layout().ScrollToShow(cpu, state_.scroll_y));
  update();
}

bool TimelineView::CpuExpanded(int cpu) const {
  return TimelineLayout::Expanded(state_, trace_ ? trace_->timeline.cpus() : 0, cpu);
}

void TimelineView::SetAllExpanded(bool expanded) {
  state_.cpu_expanded.assign(trace_ ? trace_->timeline.cpus() : 0, expanded);
  UpdateScrollBar();
  update();
}

void TimelineView::Pin(int32_t pid) {
  if (!trace_ || std::find(state_.pinned_pids.begin(), state_.pinned_pids.end(), pid) !=
                     state_.pinned_pids.end()) {
    return;
  }
  threads_.Add(*trace_, pid);
  state_.pinned_pids.push_back(pid);
  UpdateScrollBar();
  update();
  emit PinsChanged();
}

void TimelineView::Unpin(int32_t pid) {
  auto it = std::find(state_.pinned_pids.begin(), state_.pinned_pids.end(), pid);
  if (it == state_.pinned_pids.end()) return;
  state_.pinned_pids.erase(it);
  threads_.Remove(pid);
  UpdateScrollBar();
  update();
  emit PinsChanged();
}

void TimelineView::ScrollToCpu(int cpu) { SetScroll(Layout().ScrollToShow(cpu, state_.scroll_y)); }

void TimelineView::SetScroll(int scroll_y) {
  scroll_y = std::clamp(scroll_y, 0, Layout().max_scroll());
  if (scroll_y == state_.scroll_y) return;
  state_.scroll_y = scroll_y;
  scroll_bar_->blockSignals(true);
  scroll_bar_->setValue(scroll_y);
  scroll_bar_->blockSignals(false);
  update();
}

void TimelineView::UpdateScrollBar() {
  TimelineLayout layout = Layout();
  int max = layout.max_scroll();
  scroll_bar_->blockSignals(true);
  scroll_bar_->setRange(0, max);
  scroll_bar_->setPageStep(std::max(1, height() - layout.rows_top()));
  scroll_bar_->setSingleStep(std::max(4, layout.compact_height() + TimelineLayout::kCompactGap));
  scroll_bar_->setVisible(max > 0);
  scroll_bar_->setGeometry(width() - scroll_bar_->sizeHint().width(), layout.rows_top(),
                           scroll_bar_->sizeHint().width(), height() - layout.rows_top());
  scroll_bar_->blockSignals(false);
  state_.scroll_y = std::clamp(state_.scroll_y, 0, max);
  scroll_bar_->setValue(state_.scroll_y);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  UpdateScrollBar();
  QWidget::resizeEvent(event);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
  // A right click opens the menu on release (a right-drag zooms instead); the menu key here.
  if (event->reason() == QContextMenuEvent::Mouse && event->pos().x() >= Layout().time_left()) {
    return;
  }
  ShowContextMenu(event->pos(), event->globalPos());
}

void TimelineView::ShowContextMenu(QPoint pos, QPoint global_pos) {
  if (!trace_) return;
  QMenu menu(this);
  TimelineLayout layout = Layout();
  const LaneRow* row = layout.RowAt(pos.y());
  if (row != nullptr && row->kind == RowKind::kThread) {
    int32_t pid = row->pid;
    menu.addAction(QString("Unpin %1").arg(threads_.Find(pid) ? threads_.Find(pid)->name
                                                                : QString::number(pid)),
                   this, [this, pid] { Unpin(pid); });
    menu.exec(global_pos);
    return;
  }
  if (row != nullptr && pos.x() >= layout.time_left()) {
    // The task running under the mouse can be pinned.
    TimestampNs ts = AxisOf(state_, layout).TimeAt(pos.x());
    for (const TimelineInterval& interval :
         trace_->timeline.Overlapping(row->cpu, Lane::kTask, ts, ts)) {
      const TimelineItem& item = trace_->timeline.items()[interval.item];
      if (item.pid == 0) continue;
      int32_t pid = item.pid;
      QString name = QString("%1 (%2)").arg(Str(trace_->context.strings.Get(item.name))).arg(pid);
      menu.addAction(QString("Pin %1 as a thread lane").arg(name), this, [this, pid] { Pin(pid); });
    }
  }
  if (row != nullptr) {
    int cpu = row->cpu;
    bool expanded = CpuExpanded(cpu);
    menu.addAction(expanded ? QString("Compact CPU %1").arg(cpu) : QString("Expand CPU %1").arg(cpu),
                   this, [this, cpu, expanded] { SetCpuExpanded(cpu, !expanded); });
    menu.addAction(QString("Hide CPU %1").arg(cpu), this, [this, cpu] { SetCpuVisible(cpu, false); });
    menu.addSeparator();
  }
  menu.addAction("Expand all CPUs", this, [this] { SetAllExpanded(true); });
  menu.addAction("Compact all CPUs", this, [this] { SetAllExpanded(false); });
  bool silent = trace_ && trace_->CpusWithoutEvents() > 0;
  menu.addAction(silent ? "Show all CPUs with events" : "Show all CPUs", this,
                 &TimelineView::ShowCpusWithEvents);
  menu.exec(global_pos);
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

int TimelineView::LayoutWidth() const {
  return scroll_bar_->isHidden() ? width() : width() - scroll_bar_->sizeHint().width();
}

TimelineLayout TimelineView::Layout() const {
  int cpus = trace_ ? trace_->timeline.cpus() : 0;
  return TimelineLayout(cpus, state_, LayoutWidth(), height());
}

int TimelineView::ContentHeight() const {
  int cpus = trace_ ? trace_->timeline.cpus() : 0;
  return TimelineLayout(cpus, state_, LayoutWidth(), 0).content_height();
}

QSize TimelineView::sizeHint() const { return QSize(1200, ContentHeight()); }

void TimelineView::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  if (!trace_) {
    painter.fillRect(rect(), palette().window());
    painter.drawText(rect(), Qt::AlignCenter,
                     "Open a trace.dat or ftrace text file: File > Open, or drop it here.");
    return;
  }
  TimelineLayout layout = Layout();
  TimelinePainter frame(*trace_, state_, layout, &threads_);
  // Frames are drawn into an image (whose pixels the painter's fills may write directly) and
  // kept: while only the markers, the focus or a drag band change, the kept frame is shown.
  if (!frame_cache_enabled_ || !FrameCacheValid()) {
    qreal ratio = devicePixelRatioF();
    if (frame_cache_.size() != size() * ratio || frame_cache_.devicePixelRatio() != ratio) {
      // Opaque: shown with a plain copy, not a blend per pixel; reused while the size holds.
      frame_cache_ = QImage(size() * ratio, QImage::Format_RGB32);
      frame_cache_.setDevicePixelRatio(ratio);
    }
    QPainter cache(&frame_cache_);
    cache.setFont(font());
    cache.setPen(palette().color(QPalette::WindowText));
    // The frame covers the layout; beside it (under the scroll bar) is the window's colour.
    cache.fillRect(QRect(layout.width(), 0, width() - layout.width(), height()),
                   palette().window());
    frame.PaintContent(cache);
    frame_state_ = state_;
    frame_trace_ = trace_.get();
    frame_font_ = font();
  }
  painter.drawImage(0, 0, frame_cache_);
  painter.setFont(TimelinePainter::FrameFont(font()));
  frame.PaintMarkers(painter);
  if (selecting_ && dragging_) {
    // The range a right-drag or Ctrl+drag will zoom to.
    int x0 = std::min(press_pos_.x(), select_x_);
    int x1 = std::max(press_pos_.x(), select_x_);
    QRect band(x0, layout.rows_top(), x1 - x0, height() - layout.rows_top());
    painter.fillRect(band, QColor(30, 110, 220, 45));
    painter.setPen(QColor(30, 110, 220));
    painter.drawRect(band.adjusted(0, 0, -1, -1));
  }
  if (hasFocus()) {
    // The focus frame: keys (W/A/S/D, Home, Esc) go to the timeline.
    painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(rect().adjusted(1, 1, -1, -1));
  }
}

void TimelineView::SetFrameCacheEnabled(bool enabled) {
  frame_cache_enabled_ = enabled;
  frame_trace_ = nullptr;  // the kept frame is stale; its image is drawn over again
  update();
}

bool TimelineView::FrameCacheValid() const {
  // Everything a frame shows but the markers (drawn over it each time).
  const TimelineViewState& a = state_;
  const TimelineViewState& b = frame_state_;
  return !frame_cache_.isNull() && frame_trace_ == trace_.get() && frame_font_ == font() &&
         frame_cache_.deviceIndependentSize().toSize() == size() &&
         frame_cache_.devicePixelRatio() == devicePixelRatioF() && a.from_ns == b.from_ns &&
         a.to_ns == b.to_ns && a.cpu_visible == b.cpu_visible &&
         a.cpu_expanded == b.cpu_expanded && a.scroll_y == b.scroll_y &&
         a.item_mask.shown == b.item_mask.shown &&
         a.item_mask.lane_filtered == b.item_mask.lane_filtered &&
         a.highlight_cpus == b.highlight_cpus && a.highlight_window == b.highlight_window &&
         a.emphasis == b.emphasis && a.pinned_pids == b.pinned_pids;
}

void TimelineView::focusInEvent(QFocusEvent* event) {
  focusing_click_ = event->reason() == Qt::MouseFocusReason;
  update();
  QWidget::focusInEvent(event);
}

void TimelineView::focusOutEvent(QFocusEvent* event) {
  update();
  QWidget::focusOutEvent(event);
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  bool range_drag = event->button() == Qt::RightButton ||
                    (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier));
  if (range_drag && trace_ && event->position().x() >= Axis().left) {
    selecting_ = true;
    dragging_ = false;
    select_button_ = event->button();
    press_pos_ = event->position().toPoint();
    select_x_ = press_pos_.x();
    return;
  }
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  pressed_ = true;
  dragging_ = false;
  press_pos_ = event->position().toPoint();
  press_from_ns_ = state_.from_ns;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (selecting_) {
    select_x_ = static_cast<int>(event->position().x());
    dragging_ = dragging_ || std::abs(select_x_ - press_pos_.x()) >= kDragThreshold;
    update();
    return;
  }
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
  if (selecting_ && event->button() == select_button_) {
    selecting_ = false;
    update();
    if (dragging_) {
      TimeAxis axis = Axis();
      int release_x = static_cast<int>(event->position().x());
      int x0 = std::max(std::min(press_pos_.x(), release_x), axis.left);
      int x1 = std::max(press_pos_.x(), release_x);
      SetRange(axis.TimeAt(x0), axis.TimeAt(x1));
    } else if (select_button_ == Qt::RightButton) {
      ShowContextMenu(event->position().toPoint(), event->globalPosition().toPoint());
    }
    dragging_ = false;
    return;
  }
  if (event->button() != Qt::LeftButton || !pressed_) return QWidget::mouseReleaseEvent(event);
  pressed_ = false;
  unsetCursor();
  bool focusing = focusing_click_;
  focusing_click_ = false;
  if (dragging_ || !trace_) return;
  TimeAxis axis = Axis();
  if (event->position().x() < axis.left) {
    // A click on a CPU's name expands or compacts it.
    TimelineLayout layout = Layout();  // the row points into it
    const LaneRow* row = layout.RowAt(static_cast<int>(event->position().y()));
    if (row != nullptr && (row->kind == RowKind::kCompact || row->kind == RowKind::kTask)) {
      SetCpuExpanded(row->cpu, row->kind == RowKind::kCompact);
    }
    return;
  }
  if (focusing) return;
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
    // Scroll the CPU rows; the ruler stays.
    SetScroll(state_.scroll_y - event->angleDelta().y() / 120 * 3 * scroll_bar_->singleStep());
    event->accept();
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
    case Qt::Key_Z:
      ZoomToMarkers();
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
    TimelineLayout layout = Layout();
    const LaneRow* row = layout.RowAt(help->pos().y());
    QString text;
    if (row != nullptr && row->kind == RowKind::kThread) {
      const ThreadLaneData* lane = threads_.Find(row->pid);
      TimeAxis axis = AxisOf(state_, layout);
      if (lane != nullptr) {
        text = DescribeThreadAt(*trace_, *lane, axis.TimeAt(help->pos().x()),
                                static_cast<TimestampNs>(3 * axis.NsPerPixel()) + 1);
      }
    } else {
      text = DescribeAt(*trace_, state_, layout, help->pos());
    }
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
